#include "StaleRange.h"
#include "PgBatchRows.h"
#include "PgEnvironmentRegistry.h"
#include "coord/BackfillClaims.h"
#include "store/pg/PgConnection.h"

namespace forkscope::indexer {

using store::pg::PgConnection;

std::optional<ReopenedRange> reopenRangeFromAnotherBranch(PgConnection& db,
                                                          const QString& environmentId,
                                                          qint64 chainId,
                                                          const coord::SharedCheckpoint& cp)
{
    const QByteArray env = environmentId.toUtf8();
    const QByteArray chain = QByteArray::number(chainId);
    db.begin();
    try {
        PgEnvironmentRegistry(db).requireLive(environmentId);
        coord::BackfillClaims::lockPlanners(db, env, chain); // no plan or reopening meanwhile
        const auto reopened = db.run(
            "stale_reopen",
            "UPDATE backfill_ranges SET status = 'pending', parent_hash = NULL, last_hash = NULL, "
            "last_error = 'stored from another branch than block ' || ($3::bigint - 1) || ' (a "
            "reorg during the backfill): fetched again', updated_at = clock_timestamp() WHERE "
            "environment_id = $1 AND chain_id = $2 AND from_block = $3 AND status = 'done' AND "
            "parent_hash IS DISTINCT FROM $4 RETURNING to_block",
            {env, chain, QByteArray::number(cp.blockNumber + 1),
             PgConnection::byteaParam(cp.blockHash.toByteArray())});
        if (reopened.rows() == 0) {
            db.rollback();
            return std::nullopt;
        }
        ReopenedRange r{cp.blockNumber + 1, reopened.int64(0, 0), 0};
        // Delivery stops at the checkpoint, so none of the range's outbox rows went out.
        r.rowsRemoved = PgBatchRows::removeBlocks(db, env, chain, r.fromBlock, r.toBlock);
        db.commit();
        return r;
    } catch (...) {
        db.rollback();
        throw;
    }
}

} // namespace forkscope::indexer
