#include "SourcesContract.h"
#include "BinaryContract.h"

namespace forkscope::store {

namespace {

// Since schema 12 with each added factory's rule (NULL for a plain contract).
QString contractSourcesViewSql(bool withRule)
{
    return QStringLiteral("CREATE VIEW contract_sources AS SELECT environment_id, chain_id, ") +
           hexSql(QStringLiteral("address")) +
           QStringLiteral(" AS contract, start_block, block_number, ") +
           nullableHexSql(QStringLiteral("block_hash")) +
           QStringLiteral(" AS block_hash, state, added_at, joined_at") +
           (withRule ? QStringLiteral(", factory_rule") : QString()) +
           QStringLiteral(" FROM source_store");
}

QString sourceRangesViewSql()
{
    return QStringLiteral("CREATE VIEW source_ranges AS SELECT environment_id, chain_id, ") +
           hexSql(QStringLiteral("address")) +
           QStringLiteral(" AS contract, from_block, to_block, status, attempts, updated_at FROM "
                          "source_range_store");
}

} // namespace

QList<SurfaceObject> sourcesSurface()
{
    return {SurfaceObject::view(QStringLiteral("contract_sources"), contractSourcesViewSql(true)),
            SurfaceObject::view(QStringLiteral("source_ranges"), sourceRangesViewSql())};
}

Migration sourcesMigration()
{
    Migration m{10,
                QStringLiteral("contracts added to an indexed environment, with their own "
                               "backfill and checkpoint"),
                {},
                {},
                {}};
    m.statements << QStringLiteral(
                        "CREATE TABLE source_store ("
                        " environment_id TEXT NOT NULL,"
                        " chain_id INTEGER NOT NULL,"
                        " address BLOB NOT NULL,"
                        " start_block INTEGER NOT NULL,"
                        " block_number INTEGER,"
                        " block_hash BLOB,"
                        " state TEXT NOT NULL CHECK (state IN ('pending', 'joined', "
                        "'archived')),"
                        " added_at TEXT NOT NULL,"
                        " joined_at TEXT,"
                        " CHECK ((block_number IS NULL) = (block_hash IS NULL)),"
                        " PRIMARY KEY (environment_id, chain_id, address)) WITHOUT ROWID")
                 << QStringLiteral("CREATE TABLE source_range_store ("
                                   " environment_id TEXT NOT NULL,"
                                   " chain_id INTEGER NOT NULL,"
                                   " address BLOB NOT NULL,"
                                   " from_block INTEGER NOT NULL,"
                                   " to_block INTEGER NOT NULL,"
                                   " status TEXT NOT NULL,"
                                   " attempts INTEGER NOT NULL,"
                                   " updated_at TEXT NOT NULL,"
                                   " PRIMARY KEY (environment_id, chain_id, address, from_block))"
                                   " WITHOUT ROWID")
                 // The views are cut at a pending contract's checkpoint from now on; their
                 // DELETE triggers go with them and come back below.
                 << QStringLiteral("DROP VIEW logs") << QStringLiteral("DROP VIEW transfer_events");
    for (const SurfaceObject& o : binaryContractSurface())
        if (o.name == QLatin1String("logs") || o.name == QLatin1String("transfer_events") ||
            o.name == QLatin1String("logs_delete") ||
            o.name == QLatin1String("transfer_events_delete"))
            m.statements << o.sqlite;
    m.statements << contractSourcesViewSql(false) << sourceRangesViewSql();
    return m;
}

Migration sourceFactoriesMigration()
{
    Migration m{12,
                QStringLiteral("factories added to an indexed environment: their rule, and "
                               "their children's rows cut at the factory's checkpoint"),
                {},
                {},
                {}};
    // The views go first and come back over the new column; their DELETE triggers with them.
    m.statements << QStringLiteral("DROP VIEW contract_sources") << QStringLiteral("DROP VIEW logs")
                 << QStringLiteral("DROP VIEW transfer_events")
                 << QStringLiteral("ALTER TABLE source_store ADD COLUMN factory_rule TEXT");
    for (const SurfaceObject& o : binaryContractSurface())
        if (o.name == QLatin1String("logs") || o.name == QLatin1String("transfer_events") ||
            o.name == QLatin1String("logs_delete") ||
            o.name == QLatin1String("transfer_events_delete"))
            m.statements << o.sqlite;
    m.statements << contractSourcesViewSql(true);
    return m;
}

} // namespace forkscope::store
