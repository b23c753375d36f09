#pragma once

#include "AuditResult.h"
#include "LogDerivedColumns.h"
#include "indexer/HolderDeltas.h"
#include "indexer/TransferDecoder.h"

#include <QHash>
#include <QList>
#include <QVariantList>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
}

namespace forkscope::audit {

// Each holder's stored Transfers summed, as its token_balances row must say (invariant 3:
// received minus sent, with the count of transfer sides; the zero address is not a holder).
// Memory grows with the holders, not the transfers.
class TransferSums
{
public:
    struct Sum
    {
        chain::SignedAmount amount = 0;
        qint64 sides = 0;
        bool unsummable = false; // a Transfer of it has a value that is not a decimal amount
        bool hasRow = false;     // set while the balances are compared
    };

    // One transfer_events row as the read surface shows it. Parties that are not addresses
    // are skipped: only an edited row looks like that, and the Transfer check names it.
    void add(const StoredTransfer& t);
    // One Transfer as its log says (a stored row that says the same): nothing to parse.
    void add(const indexer::Transfer& t);
    // The transfer_events rows of blocks [from, to], read rowsPerPage() at a time.
    void addStored(store::ContractReader& reader, const QVariantList& scope, std::uint64_t from,
                   std::uint64_t to);
    int rowsPerPage() const { return m_rowsPerPage; }
    // For tests: pages small enough to cross on a small index.
    void setRowsPerPage(int rows) { m_rowsPerPage = std::max(1, rows); }

    qint64 transfers() const { return m_transfers; }
    QHash<indexer::HolderKey, Sum>& sums() { return m_sums; }

    static constexpr int kRowsPerPage = 10'000;

private:
    void side(const chain::Address& contract, const chain::Address& holder,
              const std::optional<chain::SignedAmount>& delta);

    QHash<indexer::HolderKey, Sum> m_sums;
    qint64 m_transfers = 0;
    int m_rowsPerPage = kRowsPerPage;
};

// Each transfer_events row of blocks [from, to] in (block, log index) order, read
// `rowsPerPage` rows at a time.
void forEachStoredTransfer(store::ContractReader& reader, const QVariantList& scope,
                           std::uint64_t from, std::uint64_t to,
                           const std::function<void(std::uint64_t block, std::uint64_t logIndex,
                                                    const StoredTransfer&)>& row,
                           int rowsPerPage = TransferSums::kRowsPerPage);

// Where --balance-of asks the token: balanceOf(holder) by eth_call at this block.
struct BalanceOfAt
{
    rpc::EthClient* eth = nullptr;
    std::uint64_t block = 0;
    chain::Hash32 blockHash;
};

// Every token_balances row of the environment against `sums`, read sums.rowsPerPage() rows
// at a time: a row that is not its holder's sum (or whose transfer_sides is not the
// count), a row no stored Transfer names, a holder Transfers name without a row. With
// `balanceOf`, each row that is its sum is also compared with the token's
// balanceOf(holder) at the checkpoint (kBalanceOfCallsPerBatch calls per batch). Findings
// and counts go to `r`. Throws AuditError when the token or the node cannot answer
// balanceOf.
void checkBalances(store::ContractReader& reader, const QVariantList& scope, TransferSums& sums,
                   AuditResult& r, const BalanceOfAt* balanceOf = nullptr);

constexpr int kBalanceOfCallsPerBatch = 100;

} // namespace forkscope::audit
