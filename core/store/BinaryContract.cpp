#include "BinaryContract.h"

namespace forkscope::store {

namespace {

const QStringList kSurface{QStringLiteral("blocks"), QStringLiteral("logs"),
                           QStringLiteral("transfer_events"), QStringLiteral("token_balances"),
                           QStringLiteral("outbox")};

QString blocksView()
{
    return QStringLiteral("CREATE VIEW blocks AS SELECT environment_id, chain_id, block_number, ") +
           hexSql(QStringLiteral("block_hash")) + QStringLiteral(" AS block_hash, ") +
           hexSql(QStringLiteral("parent_hash")) +
           QStringLiteral(" AS parent_hash, block_timestamp FROM block_store");
}

// Since schema 10 the logs of a pending added contract (docs/sources.md) show only up to its
// own checkpoint: its backfill has not reached the environment's yet. Since schema 12 the
// same holds for the children of a pending added factory (two key lookups, not an OR, so
// each stays one index probe per log).
QString pendingSourceCut()
{
    return QStringLiteral(
        "NOT EXISTS (SELECT 1 FROM source_store s WHERE s.environment_id = "
        "log_store.environment_id AND s.chain_id = log_store.chain_id AND s.address = "
        "log_store.address AND s.state = 'pending' AND log_store.block_number > "
        "coalesce(s.block_number, -1)) AND NOT EXISTS (SELECT 1 FROM child_store c JOIN "
        "source_store s ON s.environment_id = c.environment_id AND s.chain_id = c.chain_id AND "
        "s.address = c.factory WHERE c.environment_id = log_store.environment_id AND "
        "c.chain_id = log_store.chain_id AND c.child = log_store.address AND s.state = "
        "'pending' AND log_store.block_number > coalesce(s.block_number, -1))");
}

QString logsView(bool cut)
{
    return QStringLiteral("CREATE VIEW logs AS SELECT environment_id, chain_id, block_number, ") +
           hexSql(QStringLiteral("block_hash")) + QStringLiteral(" AS block_hash, log_index, ") +
           hexSql(QStringLiteral("tx_hash")) + QStringLiteral(" AS tx_hash, ") +
           hexSql(QStringLiteral("address")) + QStringLiteral(" AS address, ") +
           nullableHexSql(QStringLiteral("topic0")) + QStringLiteral(" AS topic0, ") +
           nullableHexSql(QStringLiteral("topic1")) + QStringLiteral(" AS topic1, ") +
           nullableHexSql(QStringLiteral("topic2")) + QStringLiteral(" AS topic2, ") +
           nullableHexSql(QStringLiteral("topic3")) + QStringLiteral(" AS topic3, ") +
           hexSql(QStringLiteral("data")) +
           QStringLiteral(" AS data, decode_error, event_name, coalesce(args_json, ") +
           argsFromTemplateSql() +
           QStringLiteral(") AS args_json FROM log_store LEFT JOIN args_templates a ON a.id = "
                          "args_template_id") +
           (cut ? QStringLiteral(" WHERE ") + pendingSourceCut() : QString());
}

// An ERC-20 Transfer's contract is the log's address and its parties are the low 20 bytes of
// topics 1 and 2 (TransferDecoder accepts nothing else), so they are not stored twice.
QString transferEventsView(bool cut)
{
    return QStringLiteral("CREATE VIEW transfer_events AS SELECT environment_id, chain_id, "
                          "block_number, log_index, ") +
           hexSql(QStringLiteral("tx_hash")) + QStringLiteral(" AS tx_hash, ") +
           hexSql(QStringLiteral("address")) + QStringLiteral(" AS contract, ") +
           hexSql(QStringLiteral("substr(topic1, 13)")) + QStringLiteral(" AS from_addr, ") +
           hexSql(QStringLiteral("substr(topic2, 13)")) +
           QStringLiteral(" AS to_addr, transfer_value AS value FROM log_store "
                          "WHERE transfer_value IS NOT NULL") +
           (cut ? QStringLiteral(" AND ") + pendingSourceCut() : QString());
}

QString tokenBalancesView()
{
    return QStringLiteral("CREATE VIEW token_balances AS SELECT environment_id, chain_id, ") +
           hexSql(QStringLiteral("contract")) + QStringLiteral(" AS contract, ") +
           hexSql(QStringLiteral("holder")) +
           QStringLiteral(" AS holder, balance, updated_at_block, transfer_sides "
                          "FROM balance_store");
}

// Schema 5's outbox view and delete trigger; schema 8 replaced both
// (PendingOutboxContract.cpp).
QString schema5OutboxView()
{
    return QStringLiteral("CREATE VIEW outbox AS SELECT o.id AS id, o.environment_id AS "
                          "environment_id, o.chain_id AS chain_id, o.block_number AS "
                          "block_number, coalesce(o.event_key, ") +
           outboxEventKeySql() + QStringLiteral(") AS event_key, coalesce(o.payload, ") +
           outboxPayloadSql() +
           QStringLiteral(") AS payload, o.delivered_at AS delivered_at, o.attempts AS "
                          "attempts, o.last_error AS last_error, o.failed_at AS failed_at "
                          "FROM outbox_store o LEFT JOIN log_store l ON l.environment_id = "
                          "o.environment_id AND l.chain_id = o.chain_id AND l.block_number = "
                          "o.block_number AND l.log_index = o.log_index");
}

QString schema5OutboxDeleteTrigger()
{
    return QStringLiteral("CREATE TRIGGER outbox_delete INSTEAD OF DELETE ON outbox BEGIN DELETE "
                          "FROM outbox_store WHERE id = OLD.id; END");
}

// The read surface stays editable where an edit needs no hex decoding, so a user (or a test)
// can still punch a hole with `sqlite3 FILE "DELETE FROM logs WHERE ..."` to watch `verify`
// find it, or requeue an outbox row. A Transfer is its log: deleting it from transfer_events
// leaves the log without its projection.
QList<SurfaceObject> deleteTriggers()
{
    return {
        SurfaceObject::trigger(
            QStringLiteral("blocks_delete"),
            QStringLiteral("CREATE TRIGGER blocks_delete INSTEAD OF DELETE ON blocks BEGIN DELETE "
                           "FROM block_store WHERE environment_id = OLD.environment_id AND "
                           "chain_id = OLD.chain_id AND block_number = OLD.block_number; END")),
        SurfaceObject::trigger(
            QStringLiteral("logs_delete"),
            QStringLiteral("CREATE TRIGGER logs_delete INSTEAD OF DELETE ON logs BEGIN DELETE FROM "
                           "log_store WHERE environment_id = OLD.environment_id AND chain_id = "
                           "OLD.chain_id AND block_number = OLD.block_number AND log_index = "
                           "OLD.log_index; END")),
        SurfaceObject::trigger(
            QStringLiteral("transfer_events_delete"),
            QStringLiteral("CREATE TRIGGER transfer_events_delete INSTEAD OF DELETE ON "
                           "transfer_events BEGIN UPDATE log_store SET transfer_value = NULL "
                           "WHERE environment_id = OLD.environment_id AND chain_id = "
                           "OLD.chain_id AND block_number = OLD.block_number AND log_index = "
                           "OLD.log_index; END")),
        SurfaceObject::trigger(
            QStringLiteral("token_balances_delete"),
            QStringLiteral("CREATE TRIGGER token_balances_delete INSTEAD OF DELETE ON "
                           "token_balances BEGIN DELETE FROM balance_store WHERE environment_id "
                           "= OLD.environment_id AND chain_id = OLD.chain_id AND '0x' || "
                           "lower(hex(contract)) = OLD.contract AND '0x' || lower(hex(holder)) = "
                           "OLD.holder; END")),
    };
}

} // namespace

QString outboxInsertTriggerSql()
{
    // A row with its own key and payload (as a retraction has).
    return QStringLiteral("CREATE TRIGGER outbox_insert INSTEAD OF INSERT ON outbox BEGIN INSERT "
                          "INTO outbox_store (id, environment_id, chain_id, block_number, "
                          "event_key, payload, delivered_at, attempts, last_error, failed_at) "
                          "VALUES (NEW.id, NEW.environment_id, NEW.chain_id, NEW.block_number, "
                          "NEW.event_key, NEW.payload, NEW.delivered_at, coalesce(NEW.attempts, "
                          "0), NEW.last_error, NEW.failed_at); END");
}

QString outboxUpdateTriggerSql(const QString& beforeUpdate)
{
    // Delivery bookkeeping only: what was (or will be) sent is not edited in place.
    return QStringLiteral(
               "CREATE TRIGGER outbox_update INSTEAD OF UPDATE ON outbox BEGIN SELECT "
               "raise(ABORT, 'outbox: only delivered_at, attempts, last_error and "
               "failed_at can be updated') WHERE NEW.id IS NOT OLD.id OR "
               "NEW.environment_id IS NOT OLD.environment_id OR NEW.chain_id IS NOT "
               "OLD.chain_id OR NEW.block_number IS NOT OLD.block_number OR "
               "NEW.event_key IS NOT OLD.event_key OR NEW.payload IS NOT OLD.payload; ") +
           beforeUpdate +
           QStringLiteral("UPDATE outbox_store SET delivered_at = NEW.delivered_at, attempts = "
                          "NEW.attempts, last_error = NEW.last_error, failed_at = NEW.failed_at "
                          "WHERE id = OLD.id; END");
}

QString hexSql(const QString& column)
{
    return QStringLiteral("'0x' || lower(hex(%1))").arg(column);
}

QString nullableHexSql(const QString& column)
{
    return QStringLiteral("CASE WHEN %1 IS NOT NULL THEN '0x' || lower(hex(%1)) END").arg(column);
}

QString argsFromTemplateSql()
{
    // char(1) || 'F' and friends cannot occur in an ABI name or a JSON-escaped string.
    return QStringLiteral("replace(replace(replace(a.template, char(1) || 'F', '0x' || "
                          "lower(hex(substr(topic1, 13)))), char(1) || 'T', '0x' || "
                          "lower(hex(substr(topic2, 13)))), char(1) || 'V', transfer_value)");
}

QString outboxEventKeySql(const QString& alias)
{
    return QStringLiteral("'transfer:' || %1.block_number || ':0x' || lower(hex(%1.block_hash)) "
                          "|| ':' || %1.log_index")
        .arg(alias);
}

QString outboxPayloadSql()
{
    return QStringLiteral(
        "'{\"type\":\"transfer\",\"chainId\":' || l.chain_id || ',\"blockNumber\":' || "
        "l.block_number || ',\"blockHash\":\"0x' || lower(hex(l.block_hash)) || "
        "'\",\"logIndex\":' || l.log_index || ',\"txHash\":\"0x' || lower(hex(l.tx_hash)) || "
        "'\",\"contract\":\"0x' || lower(hex(l.address)) || '\",\"from\":\"0x' || "
        "lower(hex(substr(l.topic1, 13))) || '\",\"to\":\"0x' || lower(hex(substr(l.topic2, "
        "13))) || '\",\"value\":\"' || l.transfer_value || '\"}'");
}

QList<SurfaceObject> binaryContractSurface()
{
    return QList<SurfaceObject>{
               SurfaceObject::view(QStringLiteral("blocks"), blocksView()),
               SurfaceObject::view(QStringLiteral("logs"), logsView(true)),
               SurfaceObject::view(QStringLiteral("transfer_events"), transferEventsView(true)),
               SurfaceObject::view(QStringLiteral("token_balances"), tokenBalancesView()),
           } +
           deleteTriggers();
}

Migration binaryContractMigration()
{
    Migration m{5,
                QStringLiteral("contract v4: binary tables under the contract's names, "
                               "served as views"),
                {},
                {},
                {}};
    QStringList& s = m.statements;
    for (const QString& name : kSurface)
        s << QStringLiteral("ALTER TABLE %1 RENAME TO v3_%1").arg(name);
    s << QStringLiteral("CREATE TABLE block_store ("
                        " environment_id TEXT NOT NULL,"
                        " chain_id INTEGER NOT NULL,"
                        " block_number INTEGER NOT NULL,"
                        " block_hash BLOB NOT NULL,"
                        " parent_hash BLOB NOT NULL,"
                        " block_timestamp INTEGER NOT NULL,"
                        " PRIMARY KEY (environment_id, chain_id, block_number)) WITHOUT ROWID")
      << QStringLiteral("CREATE TABLE log_store ("
                        " environment_id TEXT NOT NULL,"
                        " chain_id INTEGER NOT NULL,"
                        " block_number INTEGER NOT NULL,"
                        " log_index INTEGER NOT NULL,"
                        " block_hash BLOB NOT NULL,"
                        " tx_hash BLOB NOT NULL,"
                        " address BLOB NOT NULL,"
                        " topic0 BLOB, topic1 BLOB, topic2 BLOB, topic3 BLOB,"
                        " data BLOB NOT NULL,"
                        " decode_error TEXT,"
                        " event_name TEXT,"
                        " args_json TEXT,"
                        " transfer_value TEXT,"
                        " args_template_id INTEGER,"
                        " PRIMARY KEY (environment_id, chain_id, block_number, log_index))"
                        " WITHOUT ROWID")
      << QStringLiteral("CREATE TABLE balance_store ("
                        " environment_id TEXT NOT NULL,"
                        " chain_id INTEGER NOT NULL,"
                        " contract BLOB NOT NULL,"
                        " holder BLOB NOT NULL,"
                        " balance TEXT NOT NULL,"
                        " updated_at_block INTEGER NOT NULL,"
                        " transfer_sides INTEGER NOT NULL,"
                        " PRIMARY KEY (environment_id, chain_id, contract, holder)) WITHOUT ROWID")
      << QStringLiteral("CREATE TABLE args_templates ("
                        " id INTEGER PRIMARY KEY,"
                        " template TEXT NOT NULL UNIQUE)")
      // INTEGER PRIMARY KEY: `id` is the contract's delivery order within a block.
      << QStringLiteral("CREATE TABLE outbox_store ("
                        " id INTEGER PRIMARY KEY,"
                        " environment_id TEXT NOT NULL,"
                        " chain_id INTEGER NOT NULL,"
                        " block_number INTEGER NOT NULL,"
                        " log_index INTEGER,"
                        " event_key TEXT,"
                        " payload TEXT,"
                        " delivered_at TEXT,"
                        " attempts INTEGER NOT NULL DEFAULT 0,"
                        " last_error TEXT,"
                        " failed_at TEXT,"
                        " CHECK ((log_index IS NULL) = (event_key IS NOT NULL AND payload IS NOT "
                        "NULL)))");
    s << QStringLiteral("INSERT INTO block_store SELECT environment_id, chain_id, block_number, "
                        "forkscope_unhex(block_hash), forkscope_unhex(parent_hash), "
                        "block_timestamp FROM v3_blocks")
      << QStringLiteral("INSERT INTO log_store SELECT l.environment_id, l.chain_id, "
                        "l.block_number, l.log_index, forkscope_unhex(l.block_hash), "
                        "forkscope_unhex(l.tx_hash), forkscope_unhex(l.address), "
                        "forkscope_unhex(l.topic0), forkscope_unhex(l.topic1), "
                        "forkscope_unhex(l.topic2), forkscope_unhex(l.topic3), "
                        "forkscope_unhex(l.data), l.decode_error, l.event_name, l.args_json, "
                        "t.value, NULL FROM v3_logs l LEFT JOIN v3_transfer_events t ON "
                        "t.environment_id = l.environment_id AND t.chain_id = l.chain_id AND "
                        "t.block_number = l.block_number AND t.log_index = l.log_index")
      << QStringLiteral("INSERT INTO balance_store SELECT environment_id, chain_id, "
                        "forkscope_unhex(contract), forkscope_unhex(holder), balance, "
                        "updated_at_block, transfer_sides FROM v3_token_balances")
      // Every row first as stored text; then a Transfer row whose stored key and payload
      // are exactly what its log renders drops its copy and points at the log instead.
      << QStringLiteral("INSERT INTO outbox_store (id, environment_id, chain_id, block_number, "
                        "log_index, event_key, payload, delivered_at, attempts, last_error, "
                        "failed_at) SELECT id, environment_id, chain_id, block_number, NULL, "
                        "event_key, payload, delivered_at, attempts, last_error, failed_at "
                        "FROM v3_outbox")
      << QStringLiteral("UPDATE outbox_store AS o SET log_index = l.log_index, event_key = NULL, "
                        "payload = NULL FROM log_store AS l WHERE l.environment_id = "
                        "o.environment_id AND l.chain_id = o.chain_id AND l.block_number = "
                        "o.block_number AND l.transfer_value IS NOT NULL AND o.event_key = ") +
             outboxEventKeySql() + QStringLiteral(" AND o.payload = ") + outboxPayloadSql();
    // A Transfer's row is unique by its log; a row that stores its key, by that key. (A key
    // both rendered and stored, after a reorg and back, is refused by BatchCommitter.) Not
    // partial: a rollback finds every row above the fork, delivered or not, through it.
    s << QStringLiteral("CREATE UNIQUE INDEX outbox_store_log ON outbox_store (environment_id, "
                        "chain_id, block_number, log_index)")
      << QStringLiteral("CREATE UNIQUE INDEX outbox_store_key ON outbox_store (environment_id, "
                        "chain_id, event_key) WHERE event_key IS NOT NULL")
      // Only undelivered rows: the dispatcher's scan, and a rollback's, stay small.
      << QStringLiteral("CREATE INDEX outbox_store_pending ON outbox_store (environment_id, "
                        "chain_id, block_number) WHERE delivered_at IS NULL");
    s << blocksView() << logsView(false) << transferEventsView(false) << tokenBalancesView()
      << schema5OutboxView();
    for (const SurfaceObject& t : deleteTriggers())
        s << t.sqlite;
    s << schema5OutboxDeleteTrigger() << outboxInsertTriggerSql() << outboxUpdateTriggerSql();

    // The read surface must not change: each contract name reads exactly as the v3 table did,
    // row for row. Otherwise the migration rolls back and the file stays v3.
    for (const QString& name : kSurface)
        m.checks << QStringLiteral(
                        "SELECT CASE WHEN a + b > 0 THEN '%1: ' || a || ' of the v3 rows and ' "
                        "|| b || ' of the migrated rows differ' END FROM (SELECT (SELECT "
                        "count(*) FROM (SELECT * FROM v3_%1 EXCEPT SELECT * FROM %1)) AS a, "
                        "(SELECT count(*) FROM (SELECT * FROM %1 EXCEPT SELECT * FROM v3_%1)) "
                        "AS b)")
                        .arg(name);
    m.checks << QStringLiteral(
        "SELECT CASE WHEN count(*) > 0 THEN 'transfer_events: ' || count(*) || ' rows have no "
        "log of their own' END FROM v3_transfer_events t WHERE NOT EXISTS (SELECT 1 FROM "
        "v3_logs l WHERE l.environment_id = t.environment_id AND l.chain_id = t.chain_id AND "
        "l.block_number = t.block_number AND l.log_index = t.log_index)");
    for (const QString& name : kSurface)
        m.finalStatements << QStringLiteral("DROP TABLE v3_%1").arg(name);
    return m;
}

} // namespace forkscope::store
