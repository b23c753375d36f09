#pragma once

#include "forktree/ForkTreeWindow.h"

#include <QByteArray>
#include <QList>

namespace forkscope::store::pg {

class PgConnection;

// The fork tree's writes on PostgreSQL, as store/SqliteForkTree.h does them on a file,
// inside the caller's transaction. `env` and `chain` as the store binds them (text).
void keepOrphanedBlocks(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                        qint64 reorgId, qint64 above, qint64 top, qint64 retention);
int recordNodeSightings(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                        const QList<forktree::NodeSighting>& heads, qint64 retention);

} // namespace forkscope::store::pg
