#pragma once

#include "forktree/ForkTreeWindow.h"

#include <QList>
#include <QString>

namespace forkscope::store {

class Database;

// The fork tree's writes on a SQLite file (store/ForkTreeContract.h), inside the caller's
// transaction.
// Copies the headers of the blocks above `above` up to `top` into orphan_block_store as the
// branch rollback `reorgId` removes (before the rollback deletes them), then prunes the
// branches of rollbacks older than the latest `retention` (at most forktree::kPrunePerWrite
// of them). `retention` 0 keeps none.
void keepOrphanedBlocks(Database& db, const QString& environmentId, qint64 chainId, qint64 reorgId,
                        qint64 above, qint64 top, qint64 retention);
// Stores each head whose hash differs from its node's last stored one, pruning that node's
// heads beyond the latest `retention`. Returns how many it stored. In its own transaction
// unless one is open.
int recordNodeSightings(Database& db, const QString& environmentId, qint64 chainId,
                        const QList<forktree::NodeSighting>& heads, qint64 retention);

} // namespace forkscope::store
