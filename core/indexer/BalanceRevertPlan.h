#pragma once

#include "BalanceBook.h"
#include "HolderDeltas.h"

#include <QList>
#include <QString>
#include <cstdint>
#include <vector>

namespace forkscope::store {
class Database;
}

namespace forkscope::indexer {

// What a rollback does to balance_store, worked out by reads alone: BalanceBook::applyRevert
// then only writes it.
//
// Why split: the reads (the removed Transfers, their deltas summed and sorted, a walk over
// the holders' rows) are a fifth of a deep rollback. Made on a second connection whose
// snapshot is the state the rollback found, they run on the other core while the rollback's
// connection copies the diff and drops the outbox rows (ReorgRollback). Made on the
// rollback's own connection, before it deletes the logs, they give the same plan.
struct BalanceRevertPlan
{
    // A holder whose row is written whole: keys.key(at)'s.
    struct Row
    {
        std::size_t at = 0;
        QByteArray balance;
        qint64 sides = 0;
        qint64 updatedAt = 0;
    };
    HolderDeltas keys;             // the removed Transfers' deltas, merged (key order)
    std::vector<Row> rewrite;      // holders left with transfer sides
    std::vector<std::size_t> drop; // holders left with none: no row (not a row of "0")
    QList<BalanceChange> changes;  // for the reorg diff, in key order
    qint64 transfersRead = 0;      // Transfers whose deltas are in `keys`
};

// The plan that takes back `removed` (the deltas as BalanceBook::apply got them) from
// balance_store as `db` reads it. No row can have been written above the fork any more,
// hence updated_at_block is capped at `forkBlock`.
BalanceRevertPlan planBalanceRevert(store::Database& db, const QString& env, std::uint64_t chainId,
                                    HolderDeltas removed, std::uint64_t forkBlock);

// The same for every Transfer above block `above`, their deltas read from log_store first.
BalanceRevertPlan planRollbackBalances(store::Database& db, const QString& env,
                                       std::uint64_t chainId, qint64 above);

} // namespace forkscope::indexer
