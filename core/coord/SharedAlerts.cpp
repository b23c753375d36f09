#include "SharedAlerts.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"

namespace forkscope::coord {

QList<indexer::CompletenessAlert> openAlerts(store::pg::PgConnection& db,
                                             const QString& environmentId, quint64 chainId,
                                             const QString& node)
{
    Q_UNUSED(node);
    return openRecordedAlerts(db, environmentId, chainId);
}

QList<indexer::CompletenessAlert> openRecordedAlerts(store::pg::PgConnection& db,
                                                     const QString& environmentId, quint64 chainId)
{
    // A database no writer of this version has opened yet has no such table: no alerts.
    if (db.run("alerts_table", "SELECT to_regclass('completeness_alerts') IS NULL").text(0, 0) ==
        "t")
        return {};
    static const QByteArray sql = "SELECT id, " + store::pg::pgIsoUtcSql("detected_at") +
                                  ", node, from_block, to_block, what, kind FROM "
                                  "completeness_alerts WHERE environment_id = $1 AND chain_id = "
                                  "$2 AND resolved_at IS NULL ORDER BY from_block, id";
    const auto q = db.run("alerts_open", sql.constData(),
                          {environmentId.toUtf8(), QByteArray::number(chainId)});
    QList<indexer::CompletenessAlert> alerts;
    for (int i = 0; i < q.rows(); ++i) {
        indexer::CompletenessAlert a;
        a.id = q.int64(i, 0);
        a.detectedAt = QString::fromUtf8(q.text(i, 1));
        a.node = QString::fromUtf8(q.text(i, 2));
        a.fromBlock = std::uint64_t(q.int64(i, 3));
        a.toBlock = std::uint64_t(q.int64(i, 4));
        a.what = QString::fromUtf8(q.text(i, 5));
        a.kind = QString::fromUtf8(q.text(i, 6));
        alerts.append(a);
    }
    return alerts;
}

void recordAlert(store::pg::PgConnection& db, const QString& environmentId, quint64 chainId,
                 const QString& node, std::uint64_t fromBlock, std::uint64_t toBlock,
                 const QString& what, const QString& kind)
{
    db.run("alerts_record",
           "INSERT INTO completeness_alerts (environment_id, chain_id, node, from_block, "
           "to_block, what, kind) VALUES ($1, $2, $3, $4, $5, $6, $7)",
           {environmentId.toUtf8(), QByteArray::number(chainId), node.toUtf8(),
            QByteArray::number(qulonglong(fromBlock)), QByteArray::number(qulonglong(toBlock)),
            what.toUtf8(), kind.toUtf8()});
}

void resolveAlerts(store::pg::PgConnection& db, const QString& environmentId, quint64 chainId,
                   const QList<qint64>& ids, const QString& resolution)
{
    for (qint64 id : ids)
        db.run("alerts_resolve",
               "UPDATE completeness_alerts SET resolved_at = clock_timestamp(), resolution = $4 "
               "WHERE id = $3 AND environment_id = $1 AND chain_id = $2 AND resolved_at IS NULL",
               {environmentId.toUtf8(), QByteArray::number(chainId), QByteArray::number(id),
                resolution.toUtf8()});
}

void resolveAbsenceAbove(store::pg::PgConnection& db, const QString& environmentId, quint64 chainId,
                         qint64 above, const QString& resolution)
{
    db.run("alerts_resolve_above",
           "UPDATE completeness_alerts SET resolved_at = clock_timestamp(), resolution = $4 "
           "WHERE environment_id = $1 AND chain_id = $2 AND resolved_at IS NULL AND kind = "
           "'absence' AND from_block > $3",
           {environmentId.toUtf8(), QByteArray::number(chainId), QByteArray::number(above),
            resolution.toUtf8()});
}

} // namespace forkscope::coord
