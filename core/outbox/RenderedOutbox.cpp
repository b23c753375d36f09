#include "RenderedOutbox.h"
#include "store/Database.h"
#include "store/PendingOutboxContract.h"
#include "store/SqliteStatement.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace forkscope::outbox {

namespace {

QString fromCursorSql()
{
    return QStringLiteral("FROM log_store l WHERE l.environment_id = ?1 AND l.chain_id = ?2 AND "
                          "l.block_number >= coalesce((SELECT block_number FROM outbox_cursor "
                          "WHERE environment_id = ?1 AND chain_id = ?2), 0) AND ") +
           store::renderedOutboxWhereSql();
}

void bindScope(store::SqliteStatement& st, const QString& env, std::uint64_t chainId)
{
    st.bind(1, env.toUtf8());
    st.bind(2, std::int64_t(chainId));
}

} // namespace

QString renderedPendingCountSql()
{
    return QStringLiteral("(SELECT count(*) ") + fromCursorSql() +
           QStringLiteral(" AND l.block_number <= ?3)");
}

void bindRenderedPendingCount(store::SqliteStatement& st, const QString& env, std::uint64_t chainId,
                              std::uint64_t atOrBelow)
{
    bindScope(st, env, chainId);
    st.bind(3, std::int64_t(
                   std::min<std::uint64_t>(atOrBelow, std::numeric_limits<std::int64_t>::max())));
}

std::optional<std::int64_t> firstRenderedBlock(store::Database& db, const QString& env,
                                               std::uint64_t chainId)
{
    store::SqliteStatement q(db, QStringLiteral("SELECT l.block_number ") + fromCursorSql() +
                                     QStringLiteral(" ORDER BY l.block_number, l.log_index "
                                                    "LIMIT 1"));
    bindScope(q, env, chainId);
    if (q.next())
        return q.int64(0);
    return std::nullopt;
}

void advanceOutboxCursor(store::Database& db, const QString& env, std::uint64_t chainId)
{
    std::int64_t to = 0;
    if (const auto first = firstRenderedBlock(db, env, chainId)) {
        to = *first;
    } else {
        store::SqliteStatement q(db, "SELECT max(block_number) + 1 FROM log_store WHERE "
                                     "environment_id = ?1 AND chain_id = ?2");
        bindScope(q, env, chainId);
        if (!q.next() || q.value(0).isNull())
            return;
        to = q.int64(0);
    }
    store::SqliteStatement up(db, "INSERT INTO outbox_cursor (environment_id, chain_id, "
                                  "block_number) VALUES (?1, ?2, ?3) ON CONFLICT (environment_id, "
                                  "chain_id) DO UPDATE SET block_number = excluded.block_number "
                                  "WHERE excluded.block_number > block_number");
    bindScope(up, env, chainId);
    up.bind(3, to);
    up.execute();
}

int storeRenderedRows(store::Database& db, const QString& env, std::uint64_t chainId,
                      std::uint64_t safeHeight, int limit)
{
    // Delivery order within a block: Transfers by log index, then rows naming no log
    // (retractions) by id, as the dispatcher reads them.
    struct Pending
    {
        std::int64_t block;
        std::int64_t logIndex; // max() for a row naming no log
        bool rendered;
        auto operator<=>(const Pending&) const = default;
    };
    constexpr auto noLog = std::numeric_limits<std::int64_t>::max();
    // Most rounds find nothing rendered to send: they do not take the write lock.
    if (const auto first = firstRenderedBlock(db, env, chainId);
        !first || *first > std::int64_t(safeHeight))
        return 0;
    store::WriteTransaction tx(db);
    std::vector<Pending> head; // the round's first rows
    {
        store::SqliteStatement rendered(
            db, QStringLiteral("SELECT l.block_number, l.log_index ") + fromCursorSql() +
                    QStringLiteral(" AND l.block_number <= ?3 ORDER BY l.block_number, "
                                   "l.log_index LIMIT ?4"));
        bindScope(rendered, env, chainId);
        rendered.bind(3, std::int64_t(safeHeight));
        rendered.bind(4, std::int64_t(limit));
        while (rendered.next())
            head.push_back({rendered.int64(0), rendered.int64(1), true});
    }
    if (head.empty())
        return 0;
    {
        store::SqliteStatement stored(
            db, "SELECT block_number, coalesce(log_index, ?4) FROM outbox_store INDEXED BY "
                "outbox_store_pending WHERE environment_id = ?1 AND chain_id = ?2 AND "
                "delivered_at IS NULL AND failed_at IS NULL AND block_number <= ?3 ORDER BY "
                "block_number, coalesce(log_index, ?4) LIMIT ?5");
        bindScope(stored, env, chainId);
        stored.bind(3, std::int64_t(safeHeight));
        stored.bind(4, noLog);
        stored.bind(5, std::int64_t(limit));
        while (stored.next())
            head.push_back({stored.int64(0), stored.int64(1), false});
    }
    std::sort(head.begin(), head.end());
    head.resize(std::min(head.size(), std::size_t(limit)));
    store::SqliteStatement insert(db, "INSERT INTO outbox_store (environment_id, chain_id, "
                                      "block_number, log_index) VALUES (?1, ?2, ?3, ?4)");
    int storedRows = 0;
    for (const Pending& p : head) {
        if (!p.rendered)
            continue;
        bindScope(insert, env, chainId);
        insert.bind(3, p.block);
        insert.bind(4, p.logIndex);
        storedRows += insert.execute();
    }
    advanceOutboxCursor(db, env, chainId);
    tx.commit();
    return storedRows;
}

} // namespace forkscope::outbox
