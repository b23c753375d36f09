#include "ForkTreeContract.h"
#include "BinaryContract.h"

namespace forkscope::store {

QList<SurfaceObject> forkTreeSurface()
{
    return {
        SurfaceObject::view(
            QStringLiteral("orphaned_blocks"),
            QStringLiteral("CREATE VIEW orphaned_blocks AS SELECT environment_id, chain_id, "
                           "block_number, ") +
                hexSql(QStringLiteral("block_hash")) + QStringLiteral(" AS block_hash, ") +
                hexSql(QStringLiteral("parent_hash")) +
                QStringLiteral(" AS parent_hash, reorg_id, removed_at FROM orphan_block_store")),
        SurfaceObject::view(QStringLiteral("node_sightings"),
                            QStringLiteral("CREATE VIEW node_sightings AS SELECT id, "
                                           "environment_id, chain_id, node, block_number, ") +
                                hexSql(QStringLiteral("block_hash")) +
                                QStringLiteral(" AS block_hash, seen_at FROM "
                                               "node_sighting_store"))};
}

Migration forkTreeMigration()
{
    Migration m{11,
                QStringLiteral("the fork tree: blocks rollbacks removed, and each node's heads"),
                {},
                {},
                {}};
    // Keyed by rollback first: pruning removes the oldest rollbacks' rows as one range.
    m.statements << QStringLiteral("CREATE TABLE orphan_block_store ("
                                   " environment_id TEXT NOT NULL,"
                                   " chain_id INTEGER NOT NULL,"
                                   " reorg_id INTEGER NOT NULL,"
                                   " block_number INTEGER NOT NULL,"
                                   " block_hash BLOB NOT NULL,"
                                   " parent_hash BLOB NOT NULL,"
                                   " removed_at TEXT NOT NULL,"
                                   " PRIMARY KEY (environment_id, chain_id, reorg_id, "
                                   "block_number)) WITHOUT ROWID")
                 << QStringLiteral("CREATE INDEX orphan_block_store_number ON orphan_block_store "
                                   "(environment_id, chain_id, block_number)")
                 << QStringLiteral("CREATE TABLE node_sighting_store ("
                                   " id INTEGER PRIMARY KEY,"
                                   " environment_id TEXT NOT NULL,"
                                   " chain_id INTEGER NOT NULL,"
                                   " node TEXT NOT NULL,"
                                   " block_number INTEGER NOT NULL,"
                                   " block_hash BLOB NOT NULL,"
                                   " seen_at TEXT NOT NULL)")
                 << QStringLiteral("CREATE INDEX node_sighting_store_node ON node_sighting_store "
                                   "(environment_id, chain_id, node, id)")
                 << QStringLiteral("CREATE INDEX node_sighting_store_number ON "
                                   "node_sighting_store (environment_id, chain_id, block_number)");
    for (const SurfaceObject& o : forkTreeSurface())
        m.statements << o.sqlite;
    return m;
}

} // namespace forkscope::store
