#pragma once

#include <QString>

#include <cstdint>
#include <optional>

namespace forkscope::store {
class Database;
class SqliteStatement;
} // namespace forkscope::store

namespace forkscope::outbox {

// The pending Transfers whose outbox rows are rendered from their logs, not stored (schema 8,
// store/PendingOutboxContract.h), read from the binary tables from the outbox cursor up: below
// it every Transfer's row is stored. Each query finds them by a walk over log_store from the
// cursor, probing outbox_store's position index once per Transfer.

// A scalar subquery: the rendered (never touched) pending rows of environment ?1 / chain ?2
// at or below height ?3. For a statement that counts the stored rows too, so both are read
// in one snapshot while a delivery round stores rendered rows.
QString renderedPendingCountSql();
// Binds ?1, ?2 and ?3 of a statement built on renderedPendingCountSql().
void bindRenderedPendingCount(store::SqliteStatement& st, const QString& env, std::uint64_t chainId,
                              std::uint64_t atOrBelow);

// The block of the first rendered row, if any.
std::optional<std::int64_t> firstRenderedBlock(store::Database& db, const QString& env,
                                               std::uint64_t chainId);

// Before a delivery round: stores the rendered rows among the first `limit` pending rows at
// or below the safe height (stored and rendered, in delivery order: block, then log index,
// then rows that name no log), so each row the round sends has an id, and moves the cursor
// past them. One write transaction. Returns the rows stored.
int storeRenderedRows(store::Database& db, const QString& env, std::uint64_t chainId,
                      std::uint64_t safeHeight, int limit);

// Moves the cursor up to the first rendered row (past every stored one), or past the last
// log when none is left. Call inside a write transaction: nothing may be committed between
// the walk and the move.
void advanceOutboxCursor(store::Database& db, const QString& env, std::uint64_t chainId);

} // namespace forkscope::outbox
