#include "PendingOutboxContract.h"
#include "BinaryContract.h"
#include "SqliteStatement.h"

namespace forkscope::store {

std::int64_t outboxCursor(Database& db, const QString& environmentId, std::uint64_t chainId)
{
    SqliteStatement q(db, "SELECT block_number FROM outbox_cursor WHERE environment_id = ?1 AND "
                          "chain_id = ?2");
    q.bind(1, environmentId.toUtf8());
    q.bind(2, std::int64_t(chainId));
    return q.next() ? q.int64(0) : 0;
}

QString renderedOutboxWhereSql()
{
    return QStringLiteral("l.transfer_value IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
                          "outbox_store s WHERE s.environment_id = l.environment_id AND "
                          "s.chain_id = l.chain_id AND s.block_number = l.block_number AND "
                          "s.log_index = l.log_index)");
}

namespace {

// The log an outbox row (aliased u) names.
const char* const kSameLog = "l.environment_id = u.environment_id AND l.chain_id = u.chain_id AND "
                             "l.block_number = u.block_number AND l.log_index = u.log_index";

// The two halves yield plain columns only; the key and payload are rendered by scalar
// subqueries, which SQLite evaluates only for a row whose key or payload is read. Rendered
// inside the union, every row paid for both even in a count(*): 2.9 s against 0.24 s over a
// million pending Transfers (bench/README.md).
QString outboxView()
{
    const QString sameLog = QLatin1String(kSameLog);
    return QStringLiteral("CREATE VIEW outbox AS SELECT u.id AS id, u.environment_id AS "
                          "environment_id, u.chain_id AS chain_id, u.block_number AS "
                          "block_number, coalesce(u.event_key, (SELECT ") +
           outboxEventKeySql() + QStringLiteral(" FROM log_store l WHERE ") + sameLog +
           QStringLiteral(")) AS event_key, coalesce(u.payload, (SELECT ") + outboxPayloadSql() +
           QStringLiteral(" FROM log_store l WHERE ") + sameLog +
           QStringLiteral(")) AS payload, u.delivered_at AS delivered_at, u.attempts AS "
                          "attempts, u.last_error AS last_error, u.failed_at AS failed_at "
                          "FROM (SELECT o.id AS id, o.environment_id AS environment_id, "
                          "o.chain_id AS chain_id, o.block_number AS block_number, "
                          "o.log_index AS log_index, o.event_key AS event_key, o.payload AS "
                          "payload, o.delivered_at AS delivered_at, o.attempts AS attempts, "
                          "o.last_error AS last_error, o.failed_at AS failed_at FROM "
                          "outbox_store o UNION ALL SELECT NULL, l.environment_id, "
                          "l.chain_id, l.block_number, l.log_index, NULL, NULL, NULL, 0, "
                          "NULL, NULL FROM log_store l WHERE ") +
           renderedOutboxWhereSql() + QStringLiteral(") u");
}

} // namespace

QList<SurfaceObject> pendingOutboxSurface()
{
    return {
        SurfaceObject::view(QStringLiteral("outbox"), outboxView()),
        // A rendered row cannot be deleted on its own: it is its Transfer, which is what to
        // delete.
        SurfaceObject::trigger(
            QStringLiteral("outbox_delete"),
            QStringLiteral("CREATE TRIGGER outbox_delete INSTEAD OF DELETE ON outbox BEGIN "
                           "SELECT raise(ABORT, 'outbox: a pending Transfer''s row is rendered "
                           "from its log and cannot be deleted on its own; delete the Transfer "
                           "from transfer_events instead') WHERE OLD.id IS NULL; DELETE FROM "
                           "outbox_store WHERE id = OLD.id; END")),
        SurfaceObject::trigger(QStringLiteral("outbox_insert"), outboxInsertTriggerSql()),
        // A rendered row (id NULL) is stored first, naming its log (the log index is the
        // key's last field: transfer:<block>:<hash>:<log index>).
        SurfaceObject::trigger(
            QStringLiteral("outbox_update"),
            outboxUpdateTriggerSql(QStringLiteral(
                "INSERT INTO outbox_store (environment_id, chain_id, block_number, log_index, "
                "delivered_at, attempts, last_error, failed_at) SELECT l.environment_id, "
                "l.chain_id, l.block_number, l.log_index, NEW.delivered_at, NEW.attempts, "
                "NEW.last_error, NEW.failed_at FROM log_store l WHERE OLD.id IS NULL AND "
                "l.environment_id = OLD.environment_id AND l.chain_id = OLD.chain_id AND "
                "l.block_number = OLD.block_number AND l.log_index = CAST(substr(OLD.event_key, "
                "length('transfer:' || OLD.block_number) + 69) AS INTEGER) AND l.transfer_value "
                "IS NOT NULL; "))),
    };
}

Migration pendingOutboxMigration()
{
    Migration m{8,
                QStringLiteral("outbox: a pending Transfer's row is rendered from its log, "
                               "stored once delivery touches it"),
                {},
                {},
                {}};
    // Rows stored by earlier versions stay as they are (with their ids). Every Transfer had
    // its row stored, so the cursor starts past the last log: a Transfer whose row was deleted
    // by hand is not taken for a pending one and delivered now; the invariant check names it.
    m.statements << QStringLiteral("CREATE TABLE outbox_cursor ("
                                   " environment_id TEXT NOT NULL,"
                                   " chain_id INTEGER NOT NULL,"
                                   " block_number INTEGER NOT NULL,"
                                   " PRIMARY KEY (environment_id, chain_id)) WITHOUT ROWID")
                 << QStringLiteral("INSERT INTO outbox_cursor SELECT environment_id, chain_id, "
                                   "max(block_number) + 1 FROM log_store GROUP BY "
                                   "environment_id, chain_id")
                 // The view's triggers go with it; the new ones follow the new view.
                 << QStringLiteral("DROP VIEW outbox");
    for (const SurfaceObject& o : pendingOutboxSurface())
        m.statements << o.sqlite;
    return m;
}

} // namespace forkscope::store
