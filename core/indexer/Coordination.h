#pragma once

#include "Checkpoint.h"

#include <QList>
#include <QString>
#include <chrono>
#include <cstdint>
#include <optional>

namespace forkscope::indexer {

// A backfill range a writer is to fetch and commit whole, with its "done" mark.
struct RangeClaim
{
    std::uint64_t from = 0;
    std::uint64_t to = 0;
    int attempts = 0;       // including this one
    QString takenOverFrom;  // the writer it was taken from (its process gone, or its lease out)
    bool ownerGone = false; // taken because that writer's session ended, not its lease
};

// Who does what when several writers share one environment: which backfill ranges this
// writer fetches, which one follows the head (and so decides reorgs), which one delivers
// the outbox. The engine asks; it never knows how many writers there are.
//
// On SQLite there is one writer per file: every range is this writer's, in block order,
// and it leads the head and the outbox. On PostgreSQL ranges are leased with
// SELECT ... FOR UPDATE SKIP LOCKED and the head and outbox go to the holders of session
// advisory locks, so a dead process's share passes on at once. (graph-node keeps the same
// split: its WritableStore writes, its deployment lock decides who may.)
class Coordination
{
public:
    virtual ~Coordination();

    // Once, when the engine opens its environment: a range left running by a writer that is
    // gone is free again (SQLite: every one of them, there being no other writer).
    virtual void start() = 0;

    // The ranges to fetch next, lowest first, at most `depth`, none past `head`, each at most
    // `size` blocks; ranges already handed out and not yet committed come first, unchanged.
    // Empty when there is nothing free: other writers hold what is left. `cp` is the
    // checkpoint this round just confirmed on the node's chain: a range stored from another
    // branch right above it may be reopened (PostgreSQL: ranges finish out of order).
    virtual QList<RangeClaim> claim(const std::optional<Checkpoint>& cp, std::uint64_t from,
                                    std::uint64_t head, std::uint64_t size, int depth) = 0;
    // Ranges planned from block `from` (the one after the checkpoint) on that the checkpoint
    // has not reached yet: the backfill is not over, whatever the head (another writer may be
    // finishing one).
    virtual bool rangesOpen(std::uint64_t from) = 0;
    // Renews the leases of the ranges held (a slow node must not make them look abandoned).
    virtual void keepAlive() = 0;
    // A failure of the range's own (not the node being down): counted; past the limit it is
    // marked failed and shown, yet still retried: never skipped.
    virtual void failed(const RangeClaim& claim, const QString& error, bool givenUp) = 0;
    // Every range held goes back uncounted (the plan changed: a reorg, a shorter range size,
    // a stop).
    virtual void release() = 0;

    // Whether this writer follows the head: the only one that decides reorgs and rolls back.
    // Asked whenever such a decision is due; a writer that lost the role stops deciding at
    // once.
    virtual bool leadsHead() = 0;

    // This writer's name in messages and in the coordination tables.
    virtual QString owner() const = 0;
};

} // namespace forkscope::indexer
