#pragma once

#include "ContractSurface.h"
#include "Migrations.h"

#include <QString>

#include <cstdint>

namespace forkscope::store {

class Database;

// Schema 8: a Transfer nobody has tried to deliver has no outbox row stored. Its `outbox`
// row is rendered from its log (id NULL, pending); delivery stores the row the first time it
// touches it (delivered, refused, or retried), with an id from then on.
//
// Why: the stored row was three B-tree inserts per event (the row, its log index, the
// pending index), a fifth of a full sync's committing thread; a 100k sync without them runs
// at 0.85 of the raw ceiling instead of 0.77 (bench/README.md). A
// rollback no longer deletes what was never stored either.
//
// The read surface is unchanged but for one thing: a pending Transfer's `id` is NULL until
// delivery first touches its row. Deleting such a row through the view is refused (the row
// is its Transfer); updating it (requeue, mark) stores it.
//
// outbox_cursor: every Transfer in a block below `block_number` has its row stored, so the
// dispatcher looks for rendered rows only from there. No row reads as 0: the view itself
// never needs it (a Transfer with no stored row at its position is pending, wherever it is).
// Whatever stores a Transfer below it lowers it in the same transaction (BatchCommitter).
Migration pendingOutboxMigration();

// Schema 8's outbox view and its INSTEAD OF triggers.
QList<SurfaceObject> pendingOutboxSurface();

// The outbox cursor of an environment: every Transfer below this block has its outbox row
// stored (0 when unset).
std::int64_t outboxCursor(Database& db, const QString& environmentId, std::uint64_t chainId);

// The rendered half of the `outbox` view: a select over log_store `l` of the Transfers with no
// outbox_store row at their position, in the view's column order. The dispatcher, the counts
// and the summary use its FROM and WHERE with a scope and a cursor of their own.
QString renderedOutboxWhereSql();

} // namespace forkscope::store
