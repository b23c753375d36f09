#include "SqliteForkTree.h"
#include "Database.h"
#include "forktree/ForkTreeLimits.h"

#include <QSqlQuery>
#include <optional>

namespace forkscope::store {

void keepOrphanedBlocks(Database& db, const QString& environmentId, qint64 chainId, qint64 reorgId,
                        qint64 above, qint64 top, qint64 retention)
{
    if (retention > 0)
        db.run(QStringLiteral("INSERT INTO orphan_block_store (environment_id, chain_id, "
                              "reorg_id, block_number, block_hash, parent_hash, removed_at) "
                              "SELECT environment_id, chain_id, ?, block_number, block_hash, "
                              "parent_hash, ? FROM block_store WHERE environment_id = ? AND "
                              "chain_id = ? AND block_number > ? AND block_number <= ?"),
               {reorgId, nowUtc(), environmentId, chainId, above, top});
    // The oldest rollback still kept: the retention-th newest of the environment.
    QSqlQuery cut = db.run(QStringLiteral("SELECT id FROM reorg_events WHERE environment_id = ? "
                                          "AND chain_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?"),
                           {environmentId, chainId, std::max<qint64>(retention - 1, 0)});
    if (retention > 0 && !cut.next())
        return; // fewer rollbacks than the retention: all are kept
    const qint64 oldestKept = retention > 0 ? cut.value(0).toLongLong() : reorgId + 1;
    db.run(QStringLiteral("DELETE FROM orphan_block_store WHERE environment_id = ? AND chain_id = "
                          "? AND reorg_id IN (SELECT DISTINCT reorg_id FROM orphan_block_store "
                          "WHERE environment_id = ? AND chain_id = ? AND reorg_id < ? ORDER BY "
                          "reorg_id LIMIT ?)"),
           {environmentId, chainId, environmentId, chainId, oldestKept, forktree::kPrunePerWrite});
}

int recordNodeSightings(Database& db, const QString& environmentId, qint64 chainId,
                        const QList<forktree::NodeSighting>& heads, qint64 retention)
{
    if (retention <= 0 || heads.isEmpty())
        return 0;
    std::optional<WriteTransaction> tx;
    if (!db.inTransaction())
        tx.emplace(db);
    int stored = 0;
    const QString now = nowUtc();
    for (const forktree::NodeSighting& h : heads) {
        QSqlQuery last = db.run(QStringLiteral("SELECT block_hash FROM node_sighting_store WHERE "
                                               "environment_id = ? AND chain_id = ? AND node = ? "
                                               "ORDER BY id DESC LIMIT 1"),
                                {environmentId, chainId, h.node});
        const QByteArray hash = h.hash.toByteArray();
        if (last.next() && last.value(0).toByteArray() == hash)
            continue; // the same head as last seen: nothing new
        db.run(QStringLiteral("INSERT INTO node_sighting_store (environment_id, chain_id, node, "
                              "block_number, block_hash, seen_at) VALUES (?, ?, ?, ?, ?, ?)"),
               {environmentId, chainId, h.node, qint64(h.number), hash, now});
        ++stored;
        db.run(QStringLiteral("DELETE FROM node_sighting_store WHERE id IN (SELECT id FROM "
                              "node_sighting_store WHERE environment_id = ? AND chain_id = ? AND "
                              "node = ? ORDER BY id DESC LIMIT ? OFFSET ?)"),
               {environmentId, chainId, h.node, forktree::kPrunePerWrite, retention});
    }
    if (tx)
        tx->commit();
    return stored;
}

} // namespace forkscope::store
