#pragma once

#include "Checkpoint.h"
#include "ForkFinder.h"
#include "ReorgReason.h"
#include "RollbackResult.h"
#include "forktree/ForkTreeLimits.h"

#include <QString>
#include <future>
#include <optional>
#include <utility>
#include <vector>

namespace forkscope::store {
class Database;
class SqliteStatement;
} // namespace forkscope::store

namespace forkscope::indexer {

struct BalanceChange;
struct BalanceRevertPlan;

class BalanceBook;
class CheckpointStore;

// Undoes everything above a fork point in ONE transaction, in the order docs/design.md gives
// ("Reorgs: the fork point and the one-transaction rollback"), and records what it undid.
// reorg_diff_items kinds:
//   transfer_removed          a transfer event above the fork (from, to, value)
//   outbox_dropped            an outbox row above the fork never sent (or refused): deleted,
//                             or (never touched by delivery, so rendered from its log) gone
//                             with it. A pending retraction is not dropped: it moves down
//                             to the fork.
//   outbox_delivered_reorged  a delivered row above the fork: kept (it was sent), flagged
//                             as needing a compensating note
//   outbox_unconfirmed_retracted  a row delivery took up but holds no confirmation of (it
//                             may have been received): deleted, and retracted all the same
//   (outbox rows: event_key, and for a Transfer's row its block and log index, the payload
//   being the transfer_removed row of that log; value holds a payload only for rows that
//   store their own, such as a retraction.)
//   balance_changed           a holder's balance before and after the recompute
//   child_removed             a child of a factory whose creation event was above the fork
//                             (contract: the child, from_addr: its factory; block, log index
//                             and transaction of the creation event)
class ReorgRollback
{
public:
    ReorgRollback(store::Database& db, QString environmentId, std::uint64_t chainId,
                  QString sourceId, CheckpointStore& checkpoints, BalanceBook& balances);

    // Throws CheckpointMovedError (nothing changed) if `cp` is no longer the stored cursor.
    // Inside a caller's write transaction it joins it instead of committing.
    RollbackResult rollback(const Checkpoint& cp, const ForkPoint& fork, const QString& reason);

    // Adds one 'balance_changed' row per change to a reorg's diff (a repair's rebuilt
    // balances use it too).
    static void recordBalanceChanges(store::Database& db, qint64 reorgId, const QString& env,
                                     std::uint64_t chainId, const QList<BalanceChange>& changes);

    // Rollbacks removing at least this many Transfers plan the balances on a second
    // connection, in parallel (BalanceRevertPlan.h). Measured on the spray workload: at ~1,900
    // Transfers opening it and reading the logs twice cost more than it saves, at ~3,200 it
    // breaks even, at ~5,100 and ~10,200 it saves a fifth (bench/README.md).
    // 0: always; a huge value: never (tests and the bench take both paths).
    static constexpr qint64 kPlanAsideFrom = 4000;
    void setPlanAsideFrom(qint64 transfers) { m_planAsideFrom = transfers; }

    // false: the balances are left as they are for the caller to rebuild whole in the same
    // transaction (a repair where a removed Transfer's value is no number, so what it added
    // cannot be taken back).
    void setRevertBalances(bool revert) { m_revertBalances = revert; }
    // The branches of this many latest rollbacks are kept (store/SqliteForkTree.h).
    void setOrphanRetention(qint64 rollbacks) { m_orphanRetention = rollbacks; }

private:
    // Step 1 for the stored outbox rows above `above`: records those not recorded with their
    // Transfer, retracts the rows a consumer may have, drops the rest but pending
    // retractions, which move down to the fork. Fills r's outbox counts but the rendered
    // rows'; returns how many stored rows named a removed Transfer.
    qint64 settleStoredOutboxRows(qint64 above, RollbackResult& r);
    // Whether any outbox row above `above` is stored (touched by delivery, or naming no log).
    bool anyStoredOutboxRowAbove(qint64 above) const;
    // The plan made aside if one was started and it worked, else one made on m_db.
    BalanceRevertPlan takeBalancePlan(std::future<BalanceRevertPlan>& aside, qint64 above,
                                      RollbackResult& r);
    // Binds ?1, ?2, ?3 to this environment, chain and `above`.
    void bindScope(store::SqliteStatement& q, qint64 above) const;
    // How many Transfers are above `above`.
    qint64 countTransfersAbove(qint64 above) const;
    bool isWalFile();

    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
    QString m_source;
    CheckpointStore& m_checkpoints;
    BalanceBook& m_balances;
    qint64 m_planAsideFrom = kPlanAsideFrom;
    bool m_revertBalances = true;
    qint64 m_orphanRetention = forktree::kDefaultOrphanRetention;
    std::optional<bool> m_walFile;
};

} // namespace forkscope::indexer
