#include "PgForkTree.h"
#include "PgConnection.h"
#include "forktree/ForkTreeLimits.h"
#include "store/Database.h"

namespace forkscope::store::pg {

void keepOrphanedBlocks(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                        qint64 reorgId, qint64 above, qint64 top, qint64 retention)
{
    // Only what the checkpoint covered was canonical: rows above it are ranges other
    // writers finished out of order, never part of the chain the rollback undoes.
    if (retention > 0)
        db.run("forktree_keep_orphans",
               "INSERT INTO orphan_block_store (environment_id, chain_id, reorg_id, block_number, "
               "block_hash, parent_hash, removed_at) SELECT environment_id, chain_id, $3, "
               "block_number, block_hash, parent_hash, $4 FROM block_store WHERE environment_id "
               "= $1 AND chain_id = $2 AND block_number > $5 AND block_number <= $6",
               {env, chain, QByteArray::number(reorgId), nowUtc().toUtf8(),
                QByteArray::number(above), QByteArray::number(top)});
    qint64 oldestKept = reorgId + 1;
    if (retention > 0) {
        const PgResult cut = db.run("forktree_oldest_kept",
                                    "SELECT id FROM reorg_events WHERE environment_id = $1 AND "
                                    "chain_id = $2 ORDER BY id DESC LIMIT 1 OFFSET $3",
                                    {env, chain, QByteArray::number(retention - 1)});
        if (cut.rows() == 0)
            return; // fewer rollbacks than the retention: all are kept
        oldestKept = cut.int64(0, 0);
    }
    db.run(
        "forktree_prune_orphans",
        "DELETE FROM orphan_block_store WHERE environment_id = $1 AND chain_id = $2 AND "
        "reorg_id IN (SELECT DISTINCT reorg_id FROM orphan_block_store WHERE environment_id "
        "= $1 AND chain_id = $2 AND reorg_id < $3 ORDER BY reorg_id LIMIT $4)",
        {env, chain, QByteArray::number(oldestKept), QByteArray::number(forktree::kPrunePerWrite)});
}

int recordNodeSightings(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                        const QList<forktree::NodeSighting>& heads, qint64 retention)
{
    if (retention <= 0)
        return 0;
    int stored = 0;
    const QByteArray now = nowUtc().toUtf8();
    for (const forktree::NodeSighting& h : heads) {
        const QByteArray node = h.node.toUtf8();
        const QByteArray hash = h.hash.toByteArray();
        const PgResult last = db.run("forktree_last_sighting",
                                     "SELECT block_hash FROM node_sighting_store WHERE "
                                     "environment_id = $1 AND chain_id = $2 AND node = $3 ORDER "
                                     "BY id DESC LIMIT 1",
                                     {env, chain, node});
        if (last.rows() > 0 && last.bytes(0, 0, 32) == hash)
            continue; // the same head as last seen: nothing new
        db.run("forktree_sighting",
               "INSERT INTO node_sighting_store (environment_id, chain_id, node, block_number, "
               "block_hash, seen_at) VALUES ($1, $2, $3, $4, $5, $6)",
               {env, chain, node, QByteArray::number(qulonglong(h.number)),
                PgConnection::byteaParam(hash), now});
        ++stored;
        db.run("forktree_prune_sightings",
               "DELETE FROM node_sighting_store WHERE id IN (SELECT id FROM node_sighting_store "
               "WHERE environment_id = $1 AND chain_id = $2 AND node = $3 ORDER BY id DESC LIMIT "
               "$4 OFFSET $5)",
               {env, chain, node, QByteArray::number(forktree::kPrunePerWrite),
                QByteArray::number(retention)});
    }
    return stored;
}

} // namespace forkscope::store::pg
