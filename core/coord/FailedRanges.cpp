#include "FailedRanges.h"
#include "BackfillClaims.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"

namespace forkscope::coord {

void recordFailedRange(store::pg::PgConnection& db, const QString& environmentId, qint64 chainId,
                       qint64 from, qint64 to, const QString& error)
{
    const QByteArray env = environmentId.toUtf8();
    const QByteArray chain = QByteArray::number(chainId);
    db.begin();
    try {
        BackfillClaims::lockPlanners(db, env, chain);
        db.run("failed_range_record",
               "INSERT INTO backfill_ranges (environment_id, chain_id, from_block, to_block, "
               "status, attempts, last_error) VALUES ($1, $2, $3, $4, 'failed', 1, $5) ON "
               "CONFLICT DO NOTHING",
               {env, chain, QByteArray::number(from), QByteArray::number(to), error.toUtf8()});
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
}

QList<indexer::CompletenessAlert> failedRangeAlerts(store::pg::PgConnection& db,
                                                    const QString& environmentId, quint64 chainId,
                                                    const QString& node)
{
    static const QByteArray sql = "SELECT from_block, to_block, attempts, coalesce(last_error, "
                                  "''), " +
                                  store::pg::pgIsoUtcSql("updated_at") +
                                  " FROM backfill_ranges WHERE environment_id = $1 AND chain_id = "
                                  "$2 AND status = 'failed' ORDER BY from_block";
    const auto q = db.run("failed_range_alerts", sql.constData(),
                          {environmentId.toUtf8(), QByteArray::number(chainId)});
    QList<indexer::CompletenessAlert> alerts;
    for (int i = 0; i < q.rows(); ++i) {
        indexer::CompletenessAlert a;
        a.id = q.int64(i, 0);
        a.fromBlock = std::uint64_t(q.int64(i, 0));
        a.toBlock = std::uint64_t(q.int64(i, 1));
        a.what = QStringLiteral("backfill range failed after %1 attempt(s), the checkpoint "
                                "stays below it until forkscope index is started again: %2")
                     .arg(q.int64(i, 2))
                     .arg(QString::fromUtf8(q.text(i, 3)));
        a.detectedAt = QString::fromUtf8(q.text(i, 4));
        a.node = node;
        alerts.append(a);
    }
    return alerts;
}

} // namespace forkscope::coord
