#pragma once

#include "chain/Address.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
}

namespace forkscope::indexer {

struct InvariantReport
{
    QStringList violations; // empty = all four invariants hold
    qint64 blocks = 0;
    qint64 logs = 0;
    qint64 transfers = 0;
    qint64 balances = 0;
    qint64 outboxRows = 0;
    bool ok() const { return violations.isEmpty(); }
    QString summary() const;
};

// Checks the four invariants (docs/design.md, "Invariants") for one environment, against the
// database AND the node: the stored chain must be the node's chain, the stored logs exactly the
// node's logs, balances exactly the sum of the stored transfers (recomputed here independently of
// BalanceBook), and the outbox consistent with the events. This is the lab's verdict.
// It reads only the contract's read surface, so it checks SQLite and PostgreSQL alike.
class InvariantChecker
{
public:
    InvariantChecker(store::ContractReader& reader, rpc::EthClient& eth)
        : m_reader(reader), m_eth(eth)
    {
    }

    // Reads under one snapshot of the store (joining the caller's, if one is open): the
    // checkpoint and every row as one commit left them, while the indexer goes on committing.
    InvariantReport check(const QString& environmentId, const QString& sourceId,
                          const QList<chain::Address>& contracts);

    // Stored blocks read per query (the chain check pages through them by number): a
    // PostgreSQL result is held whole in memory, and an environment may have millions.
    static constexpr int kBlocksPerPage = 10'000;
    // For tests: pages small enough to cross on a small index.
    void setBlocksPerPage(int blocks) { m_blocksPerPage = blocks > 0 ? blocks : 1; }

private:
    store::ContractReader& m_reader;
    rpc::EthClient& m_eth;
    int m_blocksPerPage = kBlocksPerPage;
};

} // namespace forkscope::indexer
