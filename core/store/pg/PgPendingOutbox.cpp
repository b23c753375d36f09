#include "PgPendingOutbox.h"
#include "PgConnection.h"
#include "PgContract.h"

#include <algorithm>

namespace forkscope::store::pg {

namespace {

// The rendered rows of environment $1 / chain $2 from the cursor up to $3 and the checkpoint.
QByteArray fromCursorSql()
{
    return QByteArray("FROM log_store l WHERE l.environment_id = $1 AND l.chain_id = $2 AND "
                      "l.transfer_value IS NOT NULL AND l.block_number >= coalesce((SELECT "
                      "k.block_number FROM outbox_cursor k WHERE k.environment_id = $1 AND "
                      "k.chain_id = $2), 0) AND l.block_number <= least($3::bigint, "
                      "coalesce((SELECT max(c.block_number) FROM checkpoint_store c WHERE "
                      "c.environment_id = $1 AND c.chain_id = $2), -1)) AND ") +
           pgOutboxNotStoredSql();
}

QByteArray int64Text(std::int64_t n)
{
    return QByteArray::number(qlonglong(n));
}

QByteArray height(std::uint64_t h)
{
    return int64Text(std::int64_t(std::min<std::uint64_t>(h, std::numeric_limits<qint64>::max())));
}

} // namespace

QByteArray pgOutboxStoredShownSql(const char* env, const char* chain)
{
    return QByteArray("o.event_key IS NOT NULL OR o.block_number <= (SELECT max(c.block_number) "
                      "FROM checkpoint_store c WHERE c.environment_id = ") +
           env + " AND c.chain_id = " + chain + ')';
}

QByteArray pgOutboxNotStoredSql()
{
    return "NOT EXISTS (SELECT 1 FROM outbox_store s WHERE s.environment_id = l.environment_id "
           "AND s.chain_id = l.chain_id AND s.block_number = l.block_number AND s.log_index = "
           "l.log_index)";
}

// Since v9: rows with their own key and payload (retractions) beside rows rendered from
// their log, and the times as SQLite writes them. Since v12 a row delivery has not touched
// yet reads with id NULL, as in a file. Since v13 a row with its own key is shown above the
// checkpoint too, as in a file: the cut hides ranges that finished out of order, and such a
// row is no range's but history (a delivered row a rollback kept). Since v19 a Transfer with
// no stored row is rendered from its log, pending.
QByteArray pgOutboxSelect()
{
    return "SELECT CASE WHEN o.event_key IS NULL AND o.delivered_at IS NULL AND o.failed_at IS "
           "NULL AND o.attempts = 0 AND o.last_error IS NULL THEN NULL ELSE o.id END AS id, "
           "o.environment_id, o.chain_id, o.block_number, coalesce(o.event_key, " +
           pgOutboxEventKeySql() + ") AS event_key, coalesce(o.payload, " + pgOutboxPayloadSql() +
           ") AS payload, " + pgIsoUtcSql("o.delivered_at") +
           " AS delivered_at, o.attempts, o.last_error, " + pgIsoUtcSql("o.failed_at") +
           " AS failed_at FROM outbox_store o LEFT JOIN log_store l ON "
           "l.environment_id = o.environment_id AND l.chain_id = o.chain_id AND "
           "l.block_number = o.block_number AND l.log_index = o.log_index WHERE " +
           pgOutboxStoredShownSql() +
           " UNION ALL SELECT NULL::bigint, l.environment_id, l.chain_id, "
           "l.block_number, " +
           pgOutboxEventKeySql() + ", " + pgOutboxPayloadSql() +
           ", NULL::text, 0, NULL::text, NULL::text FROM log_store l WHERE l.transfer_value IS "
           "NOT NULL AND l.block_number <= (SELECT max(c.block_number) FROM checkpoint_store c "
           "WHERE c.environment_id = l.environment_id AND c.chain_id = l.chain_id) AND " +
           pgOutboxNotStoredSql();
}

void pendingOutboxStep(PgConnection& db)
{
    db.exec("CREATE TABLE outbox_cursor ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " block_number bigint NOT NULL,"
            " PRIMARY KEY (environment_id, chain_id))");
    // Every Transfer had its row stored until now. Above the checkpoint ranges finish out of
    // order, so the cursor starts just past it: a range still missing there is rendered.
    db.exec("INSERT INTO outbox_cursor SELECT environment_id, chain_id, max(block_number) + 1 "
            "FROM checkpoint_store GROUP BY environment_id, chain_id");
    const QByteArray view = "CREATE OR REPLACE VIEW outbox AS " + pgOutboxSelect();
    db.exec(view.constData());
}

std::int64_t lowerOutboxCursor(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                               std::int64_t to)
{
    return db
        .run("outbox_cursor_lower",
             "INSERT INTO outbox_cursor (environment_id, chain_id, block_number) VALUES ($1, $2, "
             "0) ON CONFLICT (environment_id, chain_id) DO UPDATE SET block_number = "
             "least(outbox_cursor.block_number, $3::bigint) RETURNING block_number",
             {env, chain, int64Text(to)})
        .int64(0, 0);
}

QByteArray pgRenderedOutboxCountSql()
{
    return "(SELECT count(*) " + fromCursorSql() + ")";
}

QByteArray pgFirstRenderedOutboxBlockSql()
{
    return "(SELECT l.block_number " + fromCursorSql() +
           " ORDER BY l.block_number, l.log_index LIMIT 1)";
}

qint64 pendingOutboxCount(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                          std::uint64_t atOrBelow)
{
    // One statement, so one snapshot: a round storing rendered rows between a count of the
    // stored rows and one of the rendered would hide them from both.
    static const QByteArray sql =
        "SELECT (SELECT count(*) FROM outbox_store o WHERE o.environment_id = $1 AND "
        "o.chain_id = $2 AND o.delivered_at IS NULL AND o.failed_at IS NULL AND o.block_number "
        "<= $3 AND (" +
        pgOutboxStoredShownSql("$1", "$2") + ")) + " + pgRenderedOutboxCountSql();
    return db.run("outbox_pending", sql.constData(), {env, chain, height(atOrBelow)}).int64(0, 0);
}

qint64 firstRenderedOutboxBlock(PgConnection& db, const QByteArray& env, const QByteArray& chain)
{
    static const QByteArray sql = "SELECT " + pgFirstRenderedOutboxBlockSql();
    const PgResult r = db.run("outbox_rendered_first", sql.constData(),
                              {env, chain, height(std::numeric_limits<std::int64_t>::max())});
    return r.isNull(0, 0) ? -1 : r.int64(0, 0);
}

int storeRenderedOutboxRows(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                            std::uint64_t safeHeight, int limit)
{
    // Most rounds find nothing rendered to send: they take no lock and write nothing.
    const qint64 first = firstRenderedOutboxBlock(db, env, chain);
    if (first < 0 || std::uint64_t(first) > safeHeight)
        return 0;
    PgTransaction tx(db);
    // The cursor's row lock: a rollback or an added contract's batch that stores below the
    // cursor waits for this round, or this round for it.
    lowerOutboxCursor(db, env, chain);
    // The first `limit` rendered rows: every row the round sends comes before any rendered
    // row left (rows already stored and pending may come first: then some of these wait).
    static const QByteArray store =
        "INSERT INTO outbox_store (environment_id, chain_id, block_number, log_index) SELECT "
        "l.environment_id, l.chain_id, l.block_number, l.log_index " +
        fromCursorSql() + " ORDER BY l.block_number, l.log_index LIMIT $4 ON CONFLICT DO NOTHING";
    const int stored = int(db.run("outbox_store_rendered", store.constData(),
                                  {env, chain, height(safeHeight), int64Text(limit)})
                               .affected());
    // Up to the first rendered row left, or just past the checkpoint.
    static const QByteArray advance =
        "UPDATE outbox_cursor SET block_number = n.upto FROM (SELECT coalesce((SELECT "
        "l.block_number " +
        fromCursorSql() +
        " ORDER BY l.block_number, l.log_index LIMIT 1), (SELECT max(c.block_number) + 1 FROM "
        "checkpoint_store c WHERE c.environment_id = $1 AND c.chain_id = $2)) AS upto) n WHERE "
        "environment_id = $1 AND chain_id = $2 AND block_number < n.upto";
    db.run("outbox_cursor_advance", advance.constData(),
           {env, chain, height(std::numeric_limits<std::int64_t>::max())});
    tx.commit();
    return stored;
}

} // namespace forkscope::store::pg
