#pragma once

#include "chain/Hash32.h"

#include <QByteArray>
#include <optional>

namespace forkscope::store::pg {

class PgConnection;

// range_store, the backfill ranges the writers of a shared environment share (behind the
// contract's `backfill_ranges` view), as more than one writer's code needs it.

// The last block planned, nullopt before the first plan.
std::optional<qint64> plannedTo(PgConnection& db, const QByteArray& env, const QByteArray& chain);

// Every range done and the checkpoint stopped below the last: the range right above it was
// stored from another branch than the checkpoint's block (a reorg during the backfill, above
// the checkpoint), so its parent hash does not follow and the checkpoint can never cross
// it. In one transaction, under the planners' lock, its rows go (readers never saw them:
// the views stop at the checkpoint) and it is pending again. The caller must first have
// confirmed the checkpoint on the node: a reorg below it is the head leader's to roll back,
// recorded. False when there is no such range (any more: another writer may have reopened
// it).
bool reopenStaleRange(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                      std::uint64_t checkpoint, const chain::Hash32& checkpointHash);

// What batches wrote for blocks `from` to `to`, inside the caller's transaction: their outbox
// rows not yet delivered, their logs and their blocks. Delivered outbox rows stay (a
// rollback keeps them as text first). Returns how many rows went.
qint64 removeBlocks(PgConnection& db, const QByteArray& env, const QByteArray& chain, qint64 from,
                    qint64 to);

} // namespace forkscope::store::pg
