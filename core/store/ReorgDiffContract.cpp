#include "ReorgDiffContract.h"
#include "BinaryContract.h"

namespace forkscope::store {

QString reorgDiffColumnsSql()
{
    return QStringLiteral("d.reorg_id AS reorg_id, d.environment_id AS environment_id, "
                          "d.chain_id AS chain_id, d.kind AS kind, d.block_number AS "
                          "block_number, d.log_index AS log_index, ") +
           nullableHexSql(QStringLiteral("d.tx_hash")) + QStringLiteral(" AS tx_hash, ") +
           nullableHexSql(QStringLiteral("d.contract")) + QStringLiteral(" AS contract, ") +
           nullableHexSql(QStringLiteral("d.holder")) + QStringLiteral(" AS holder, ") +
           nullableHexSql(QStringLiteral("d.from_addr")) + QStringLiteral(" AS from_addr, ") +
           nullableHexSql(QStringLiteral("d.to_addr")) +
           QStringLiteral(" AS to_addr, d.value AS value, d.before_value AS before_value, "
                          "d.after_value AS after_value, coalesce(d.event_key, CASE WHEN "
                          "d.block_hash IS NOT NULL AND d.kind <> 'transfer_removed' THEN ") +
           outboxEventKeySql(QStringLiteral("d")) + QStringLiteral(" END) AS event_key");
}

QString reorgDiffRowsSql()
{
    // A transfer_removed row with an outbox_kind stands for two items: the Transfer, and what
    // became of its outbox row, keyed by the block hash it keeps. Phases give the order a
    // rollback records in: transfers, outbox rows, balances.
    return QStringLiteral("SELECT d.id AS id, CASE d.kind WHEN 'transfer_removed' THEN 0 WHEN "
                          "'balance_changed' THEN 2 ELSE 1 END AS phase, ") +
           reorgDiffColumnsSql() +
           QStringLiteral(" FROM reorg_diff_store d UNION ALL SELECT d.id, 1, d.reorg_id, "
                          "d.environment_id, d.chain_id, d.outbox_kind, d.block_number, "
                          "d.log_index, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ") +
           outboxEventKeySql(QStringLiteral("d")) +
           QStringLiteral(" FROM reorg_diff_store d WHERE d.outbox_kind IS NOT NULL");
}

Migration reorgDiffFoldMigration()
{
    Migration m{7,
                QStringLiteral("a removed Transfer's diff row carries its outbox row's fate"),
                {},
                {},
                {}};
    // No stored row changes: rows recorded so far have no outbox_kind, so the view reads them
    // exactly as before, and the new half of the union is empty for them.
    m.statements << QStringLiteral("ALTER TABLE reorg_diff_store ADD COLUMN outbox_kind TEXT")
                 << QStringLiteral("DROP VIEW reorg_diff_items");
    for (const SurfaceObject& o : reorgDiffSurface())
        m.statements << o.sqlite;
    return m;
}

QList<SurfaceObject> reorgDiffSurface()
{
    return {SurfaceObject::view(
        QStringLiteral("reorg_diff_items"),
        QStringLiteral("CREATE VIEW reorg_diff_items AS SELECT reorg_id, environment_id, "
                       "chain_id, kind, block_number, log_index, tx_hash, contract, holder, "
                       "from_addr, to_addr, value, before_value, after_value, event_key FROM (") +
            reorgDiffRowsSql() + QStringLiteral(")"))};
}

Migration reorgDiffMigration()
{
    Migration m{
        6, QStringLiteral("reorg_diff_items as a view over binary reorg_diff_store"), {}, {}, {}};
    m.statements << QStringLiteral("ALTER TABLE reorg_diff_items RENAME TO v5_reorg_diff_items")
                 // INTEGER PRIMARY KEY: the order a rollback recorded its rows in.
                 << QStringLiteral(
                        "CREATE TABLE reorg_diff_store ("
                        " id INTEGER PRIMARY KEY,"
                        " reorg_id INTEGER NOT NULL,"
                        " environment_id TEXT NOT NULL,"
                        " chain_id INTEGER NOT NULL,"
                        " kind TEXT NOT NULL," // see ReorgRollback.h
                        " block_number INTEGER,"
                        " log_index INTEGER,"
                        " block_hash BLOB," // of a dropped outbox row's log: renders its key
                        " tx_hash BLOB,"
                        " contract BLOB,"
                        " holder BLOB,"
                        " from_addr BLOB,"
                        " to_addr BLOB,"
                        " value TEXT,"
                        " before_value TEXT,"
                        " after_value TEXT,"
                        " event_key TEXT)")
                 << QStringLiteral(
                        "INSERT INTO reorg_diff_store (id, reorg_id, environment_id, chain_id, "
                        "kind, block_number, log_index, tx_hash, contract, holder, from_addr, "
                        "to_addr, value, before_value, after_value, event_key) SELECT rowid, "
                        "reorg_id, environment_id, chain_id, kind, block_number, log_index, "
                        "forkscope_unhex(tx_hash), forkscope_unhex(contract), "
                        "forkscope_unhex(holder), forkscope_unhex(from_addr), "
                        "forkscope_unhex(to_addr), value, before_value, after_value, "
                        "event_key FROM v5_reorg_diff_items")
                 << QStringLiteral("CREATE INDEX reorg_diff_store_reorg ON reorg_diff_store "
                                   "(environment_id, chain_id, reorg_id)")
                 << QStringLiteral("CREATE VIEW reorg_diff_items AS SELECT ") +
                        reorgDiffColumnsSql() + QStringLiteral(" FROM reorg_diff_store d");
    // Every row reads as it did, or the step rolls back and the file stays at schema 5.
    m.checks << QStringLiteral(
        "SELECT CASE WHEN a + b > 0 THEN 'reorg_diff_items: ' || a || ' of the stored rows and "
        "' || b || ' of the migrated rows differ' END FROM (SELECT (SELECT count(*) FROM "
        "(SELECT * FROM v5_reorg_diff_items EXCEPT SELECT * FROM reorg_diff_items)) AS a, "
        "(SELECT count(*) FROM (SELECT * FROM reorg_diff_items EXCEPT SELECT * FROM "
        "v5_reorg_diff_items)) AS b)");
    m.finalStatements << QStringLiteral("DROP TABLE v5_reorg_diff_items");
    return m;
}

} // namespace forkscope::store
