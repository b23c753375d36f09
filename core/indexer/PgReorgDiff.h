#pragma once

#include <QByteArray>
#include <QList>

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::indexer {

// Records in reorg_diff_store what a rollback of a shared index is about to remove, as
// ReorgRollback does on SQLite: each removed Transfer, each outbox row above the fork
// (dropped, or delivered and so retracted), and each balance the removal changes, with its
// value before and after. Call inside the rollback's transaction, before anything above
// the fork is deleted or rewritten. `scope`: environment id, chain id, the fork block (rows
// strictly above it go), the reorg_events id, and the old checkpoint block.
void recordPgReorgDiff(store::pg::PgConnection& db, const QList<QByteArray>& scope);

} // namespace forkscope::indexer
