#include "PgRanges.h"
#include "PgConnection.h"
#include "coord/BackfillClaims.h"

namespace forkscope::store::pg {

std::optional<qint64> plannedTo(PgConnection& db, const QByteArray& env, const QByteArray& chain)
{
    // Ranges never overlap, so the last one ends highest: one probe of the key, however many
    // batches the head's follower has recorded.
    const PgResult r = db.run("ranges_planned_to",
                              "SELECT to_block FROM range_store WHERE environment_id = $1 AND "
                              "chain_id = $2 ORDER BY from_block DESC LIMIT 1",
                              {env, chain});
    if (r.rows() == 0)
        return std::nullopt;
    return r.int64(0, 0);
}

bool reopenStaleRange(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                      std::uint64_t checkpoint, const chain::Hash32& checkpointHash)
{
    const QByteArray from = QByteArray::number(qulonglong(checkpoint + 1));
    db.begin();
    try {
        coord::BackfillClaims::lockPlanners(db, env, chain); // no plan or reopening meanwhile
        const PgResult reopened = db.run(
            "stale_reopen",
            "UPDATE range_store SET status = 'pending', parent_hash = NULL, last_hash = NULL, "
            "last_error = 'stored from another branch than block ' || ($3::bigint - 1) || ' (a "
            "reorg during the backfill): fetched again', updated_at = clock_timestamp() WHERE "
            "environment_id = $1 AND chain_id = $2 AND from_block = $3 AND status = 'done' AND "
            "parent_hash IS DISTINCT FROM $4 RETURNING to_block",
            {env, chain, from, PgConnection::byteaParam(checkpointHash.toByteArray())});
        if (reopened.rows() == 0) {
            db.rollback();
            return false;
        }
        // Delivery stops at the checkpoint, so none of the range's outbox rows went out.
        removeBlocks(db, env, chain, from.toLongLong(), reopened.int64(0, 0));
        db.commit();
        return true;
    } catch (...) {
        db.rollback();
        throw;
    }
}

qint64 removeBlocks(PgConnection& db, const QByteArray& env, const QByteArray& chain, qint64 from,
                    qint64 to)
{
    const QList<QByteArray> span{env, chain, QByteArray::number(from), QByteArray::number(to)};
    qint64 removed = 0;
    for (const char* sql : {"DELETE FROM outbox_store WHERE environment_id = $1 AND chain_id = $2 "
                            "AND block_number BETWEEN $3 AND $4 AND delivered_at IS NULL",
                            "DELETE FROM log_store WHERE environment_id = $1 AND chain_id = $2 AND "
                            "block_number BETWEEN $3 AND $4",
                            "DELETE FROM block_store WHERE environment_id = $1 AND chain_id = $2 "
                            "AND block_number BETWEEN $3 AND $4"})
        removed += db.run(sql, sql, span).affected();
    return removed;
}

} // namespace forkscope::store::pg
