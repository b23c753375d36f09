#pragma once

#include "ForeignCell.h"
#include "chain/Address.h"
#include "chain/Hash32.h"
#include "chain/U256.h"

#include <QString>
#include <QStringList>
#include <optional>

namespace forkscope::foreign {

// One row of the audited query: one indexed ERC-20 Transfer, as the other indexer stored it.
// The optional fields are the columns the query may leave out (then they are not compared).
struct ForeignRow
{
    std::uint64_t block = 0;
    std::optional<std::uint64_t> logIndex;   // else txHash + txPosition
    std::optional<std::uint64_t> txPosition; // the log's place among its transaction's logs
    std::optional<chain::Hash32> txHash;
    chain::Address contract;
    std::optional<chain::Address> from;
    std::optional<chain::Address> to;
    std::optional<chain::U256> value;
    std::optional<chain::Hash32> blockHash;
    // The first hex digits of the block hash (Subsquid's ids carry five), lower case.
    QString blockHashPrefix;
    QString label; // how a message names the row: its id, else its block and log index
};

// Where the audit's columns are among those the query yields (matched by name, ignoring
// case), and the reading of one row through them.
class ForeignColumns
{
public:
    // Throws ForeignError (BadQuery) naming what is missing: block_number; log_index, or
    // tx_hash and tx_position; contract, unless `onlyContract` (one --contract) stands for it.
    ForeignColumns(const QStringList& names, const std::optional<chain::Address>& onlyContract);

    // Throws ForeignError (BadValue) naming the row and the column whose value does not parse.
    ForeignRow read(const ForeignCells& cells) const;

    // The event's fields the rows carry and the audit compares ("from", "to", "value", ...).
    QStringList compared() const;
    bool hasBlockHash() const { return m_blockHash >= 0; }

private:
    int m_block = -1, m_logIndex = -1, m_txPosition = -1, m_txHash = -1, m_contract = -1,
        m_from = -1, m_to = -1, m_value = -1, m_blockHash = -1, m_blockHashPrefix = -1, m_id = -1;
    std::optional<chain::Address> m_onlyContract;
    QStringList m_names;
};

// The one-line complaint about a cell: `row LABEL: column NAME VALUE WHY`.
QString badCell(const QString& label, const QString& column, const ForeignCell& c,
                const QString& why);

} // namespace forkscope::foreign
