#pragma once

#include <QByteArray>

#include <cstdint>
#include <limits>

namespace forkscope::store::pg {

class PgConnection;

// Contract v19: a Transfer nobody has tried to deliver has no outbox_store row, as in a file
// (store/PendingOutboxContract.h). Its `outbox` row is rendered from its log (id NULL,
// pending); the deliverer stores the rows a round hands out just before it reads them, so
// every row a sink receives has an id, and marks them as before.
//
// Why: the stored row and its three index entries per Transfer were about a third of the
// server's time in a backfill (bench/README.md).
//
// outbox_cursor: every Transfer in a block below `block_number` has its row stored, so the
// deliverer looks for rendered rows only from there. It never passes the checkpoint + 1:
// above it ranges finish out of order, and a range committed below the cursor would hide its
// Transfers from delivery. What stores a Transfer at or below the checkpoint (a rollback's
// replacement blocks, an added contract's backfill) lowers it first, under the same row
// lock the deliverer takes (lowerOutboxCursor), so neither misses the other's rows.

// The v19 step (PgMigrations.cpp), inside ensurePgContract's transaction.
void pendingOutboxStep(PgConnection& db);

// The `outbox` view's SELECT: stored rows, then the rendered ones.
QByteArray pgOutboxSelect();

// "The outbox_store row `o` is one the view shows": it has its own key (a retraction), or
// the checkpoint covers its block. Every count of stored rows uses this rule, as the view does.
// `env` and `chain`: the environment and chain, as parameters ("$1") where a statement reads
// one environment, so its checkpoint is read once rather than per row.
QByteArray pgOutboxStoredShownSql(const char* env = "o.environment_id",
                                  const char* chain = "o.chain_id");

// "The log_store row `l` has no outbox_store row": its outbox row is rendered, not stored.
QByteArray pgOutboxNotStoredSql();

// Locks the environment's cursor row (creating it at 0) and lowers it to `to`; returns where
// it stands. Inside the caller's transaction; the lock holds until it ends.
std::int64_t lowerOutboxCursor(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                               std::int64_t to = std::numeric_limits<std::int64_t>::max());

// Before a delivery round: stores the first `limit` rendered rows at or below the safe height
// and the checkpoint, so each row the round may send has an id, and moves the cursor past
// them. Its own transaction. Returns the rows stored.
int storeRenderedOutboxRows(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                            std::uint64_t safeHeight, int limit);

// Pending rows at or below `atOrBelow`, as the view shows them: stored ones (with their own
// key, or at or below the checkpoint) and rendered ones (at or below the checkpoint). One
// statement: what --exit-when-synced, the deliverer and the status bar wait on.
qint64 pendingOutboxCount(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                          std::uint64_t atOrBelow = std::numeric_limits<std::int64_t>::max());

// Scalar subqueries over environment $1 / chain $2 up to height $3 and the checkpoint, for
// a statement that reads the stored rows too (the same snapshot): the rendered rows' count,
// and the first one's block (NULL if none).
QByteArray pgRenderedOutboxCountSql();
QByteArray pgFirstRenderedOutboxBlockSql();

// The block of the first rendered row at or below the checkpoint, or -1.
qint64 firstRenderedOutboxBlock(PgConnection& db, const QByteArray& env, const QByteArray& chain);

} // namespace forkscope::store::pg
