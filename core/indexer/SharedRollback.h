#pragma once

#include "ForkFinder.h"
#include "coord/PrefixCheckpoint.h"

#include <QString>
#include <functional>
#include <optional>

namespace forkscope::store::pg {
class PgConnection;
}
namespace forkscope::coord {
class BackfillClaims;
class SessionLock;
} // namespace forkscope::coord

namespace forkscope::indexer {

// What one rollback of a shared index undid.
struct UndoneReorg
{
    qint64 checkpoint = 0; // the checkpoint it moved back from
    qint64 fork = 0;       // the block it moved back to
    qint64 removed = 0;    // rows deleted: blocks, logs, outbox rows, ranges
    qint64 delivered = 0;  // outbox rows a consumer had, retracted
    QString reason;

    // The follower's "REORG (...): checkpoint A -> fork B, ..." line.
    QString describe() const;
};

// The rollback of a shared PostgreSQL index to a fork point, for a reorg the head follower
// found or a repair asked for by hand (SharedHeadFollower). Everything above the fork goes
// in one transaction with the checkpoint's move back: a reader sees the rows and the
// checkpoint that covers them change together, or neither (docs/design.md, "Data and
// checkpoint commit together").
class SharedRollback
{
public:
    SharedRollback(store::pg::PgConnection& db, coord::PrefixCheckpoint& checkpoint,
                   QString environmentId, qint64 chainId, QString sourceId);

    // Undoes everything above `fork` from `cp`: the rows, their undelivered outbox rows
    // (delivered ones retracted), the ranges that covered them, with a reorg_events row and
    // its diff, and moves the checkpoint back by compare-and-swap. nullopt, nothing changed,
    // when another writer moved the checkpoint meanwhile (look again).
    std::optional<UndoneReorg> undoAbove(const coord::SharedCheckpoint& cp, const ForkPoint& fork,
                                         const QString& reason);

    // `forkscope repair --from`: checks the repair and rolls back to from - 1 (reason
    // "repair"); returns the checkpoint to index up to again. Refused, nothing changed,
    // while another process holds the head lock (`lock` is taken here), a range has failed
    // or the backfill is incomplete, or for a block outside the indexed blocks.
    qint64 forRepair(coord::SessionLock& lock, coord::BackfillClaims& ranges, std::uint64_t from,
                     const std::function<void(const QString&)>& say);

private:
    store::pg::PgConnection& m_db;
    coord::PrefixCheckpoint& m_checkpoint;
    QString m_environmentId;
    QByteArray m_env;
    QByteArray m_chain;
    QString m_sourceId;
};

} // namespace forkscope::indexer
