#pragma once

#include <QMetaType>
#include <QString>
#include <cstdint>

namespace forkscope::indexer {

// What one rollback undid (a reorg, or a repair), whichever store it ran on.
struct RollbackResult
{
    qint64 reorgId = 0;
    std::uint64_t oldCheckpoint = 0;
    qint64 forkBlock = -1; // -1 with nothing left (fork below the first indexed block)
    std::uint64_t depth = 0;
    qint64 rowsRemoved = 0;
    qint64 transfersRemoved = 0;
    qint64 outboxDropped = 0; // stored rows deleted and rendered rows gone with their logs
    qint64 deliveredAffected = 0;
    // Rows delivery took up without a confirmation: the consumer may have them, so they are
    // retracted too (and not counted as dropped).
    qint64 unconfirmedRetracted = 0;
    qint64 balancesChanged = 0;
    qint64 childrenRemoved = 0; // children of factories whose creation was rolled back
    // Suspicions of absence about the removed blocks, settled because they are indexed
    // again: a repair counts them with the alerts it resolves itself.
    int alertsSettled = 0;
    bool balancesPlannedAside = false; // SQLite: on a second connection (BalanceRevertPlan.h)
    // Why a plan started on a second connection was not used (and the balances were planned
    // on the rollback's own): its error. Empty when it was used or none was started.
    QString planAsideFallback;
    // What it undid, in words for the log: "3 transfers removed, 2 balances recomputed,
    // 3 outbox rows dropped" (not a count of database rows).
    QString undoneText() const;
    // The command line's reorg line after "REORG (reason): ": "checkpoint 412 -> fork 400,
    // depth 12, " then undoneText(), then ", reorg id 3".
    QString summary() const;
};

} // namespace forkscope::indexer

Q_DECLARE_METATYPE(forkscope::indexer::RollbackResult)
