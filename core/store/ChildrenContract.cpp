#include "ChildrenContract.h"
#include "BinaryContract.h"

namespace forkscope::store {

namespace {

QString childrenViewSql()
{
    return QStringLiteral("CREATE VIEW factory_children AS SELECT environment_id, chain_id, ") +
           hexSql(QStringLiteral("factory")) + QStringLiteral(" AS factory, ") +
           hexSql(QStringLiteral("child")) +
           QStringLiteral(" AS child, block_number, log_index, ") +
           hexSql(QStringLiteral("block_hash")) + QStringLiteral(" AS block_hash, ") +
           hexSql(QStringLiteral("tx_hash")) + QStringLiteral(" AS tx_hash FROM child_store");
}

} // namespace

QList<SurfaceObject> childrenSurface()
{
    return {SurfaceObject::view(QStringLiteral("factory_children"), childrenViewSql())};
}

Migration childrenMigration()
{
    Migration m{9, QStringLiteral("factory sources: the children of their factories"), {}, {}, {}};
    m.statements << QStringLiteral("CREATE TABLE child_store ("
                                   " environment_id TEXT NOT NULL,"
                                   " chain_id INTEGER NOT NULL,"
                                   " child BLOB NOT NULL,"
                                   " factory BLOB NOT NULL,"
                                   " block_number INTEGER NOT NULL,"
                                   " log_index INTEGER NOT NULL,"
                                   " block_hash BLOB NOT NULL,"
                                   " tx_hash BLOB NOT NULL,"
                                   " PRIMARY KEY (environment_id, chain_id, child)) WITHOUT ROWID")
                 // A rollback removes the children created above its fork.
                 << QStringLiteral("CREATE INDEX child_store_block ON child_store "
                                   "(environment_id, chain_id, block_number)");
    for (const SurfaceObject& o : childrenSurface())
        m.statements << o.sqlite;
    return m;
}

} // namespace forkscope::store
