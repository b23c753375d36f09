#include "CompletenessAlerts.h"
#include "store/ContractReader.h"
#include "store/Database.h"

#include <QSqlQuery>
#include <optional>

namespace forkscope::indexer {

QList<CompletenessAlert> openAlerts(store::ContractReader& reader, const QString& environmentId,
                                    std::uint64_t chainId)
{
    QList<CompletenessAlert> out;
    for (auto q = reader.query(QStringLiteral("SELECT id, detected_at, node, from_block, to_block, "
                                              "what, kind FROM completeness_alerts WHERE "
                                              "environment_id = ? AND chain_id = ? AND "
                                              "resolved_at IS NULL ORDER BY from_block, id"),
                               {environmentId, qint64(chainId)});
         q->next();) {
        CompletenessAlert a;
        a.id = q->value(0).toLongLong();
        a.detectedAt = q->value(1).toString();
        a.node = q->value(2).toString();
        a.fromBlock = q->value(3).toULongLong();
        a.toBlock = q->value(4).toULongLong();
        a.what = q->value(5).toString();
        a.kind = q->value(6).toString();
        out.append(a);
    }
    return out;
}

qint64 CompletenessAlerts::record(const QString& node, std::uint64_t fromBlock,
                                  std::uint64_t toBlock, const QString& what, const QString& kind)
{
    std::optional<store::WriteTransaction> tx;
    if (!m_db.inTransaction())
        tx.emplace(m_db);
    QSqlQuery q = m_db.run(
        QStringLiteral("INSERT INTO completeness_alerts (environment_id, chain_id, detected_at, "
                       "node, from_block, to_block, what, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
        {m_env, qint64(m_chainId), store::nowUtc(), node, qint64(fromBlock), qint64(toBlock), what,
         kind});
    const qint64 id = q.lastInsertId().toLongLong();
    if (tx)
        tx->commit();
    return id;
}

QList<CompletenessAlert> CompletenessAlerts::open()
{
    QSqlQuery q = m_db.run(
        QStringLiteral("SELECT id, detected_at, node, from_block, to_block, what, kind FROM "
                       "completeness_alerts WHERE environment_id = ? AND chain_id = ? AND "
                       "resolved_at IS NULL ORDER BY from_block, id"),
        {m_env, qint64(m_chainId)});
    QList<CompletenessAlert> out;
    while (q.next()) {
        CompletenessAlert a;
        a.id = q.value(0).toLongLong();
        a.detectedAt = q.value(1).toString();
        a.node = q.value(2).toString();
        a.fromBlock = q.value(3).toULongLong();
        a.toBlock = q.value(4).toULongLong();
        a.what = q.value(5).toString();
        a.kind = q.value(6).toString();
        out.append(a);
    }
    return out;
}

int CompletenessAlerts::resolveFrom(std::uint64_t fromBlock, const QString& resolution)
{
    QSqlQuery q = m_db.run(
        QStringLiteral("UPDATE completeness_alerts SET resolved_at = ?, resolution = ? WHERE "
                       "environment_id = ? AND chain_id = ? AND resolved_at IS NULL AND "
                       "to_block >= ?"),
        {store::nowUtc(), resolution, m_env, qint64(m_chainId), qint64(fromBlock)});
    return q.numRowsAffected();
}

int CompletenessAlerts::resolveCommitted(std::uint64_t checkpoint)
{
    QSqlQuery q = m_db.run(
        QStringLiteral("UPDATE completeness_alerts SET resolved_at = ?, resolution = ? WHERE "
                       "environment_id = ? AND chain_id = ? AND resolved_at IS NULL AND kind = "
                       "'fetch' AND to_block <= ?"),
        {store::nowUtc(),
         QStringLiteral("fetched whole when indexing reached it (every check passed)"), m_env,
         qint64(m_chainId), qint64(checkpoint)});
    return q.numRowsAffected();
}

int CompletenessAlerts::resolve(const QList<qint64>& ids, const QString& resolution)
{
    if (ids.isEmpty())
        return 0;
    std::optional<store::WriteTransaction> tx;
    if (!m_db.inTransaction())
        tx.emplace(m_db);
    int resolved = 0;
    const QString now = store::nowUtc();
    for (qint64 id : ids)
        resolved += m_db.run(QStringLiteral("UPDATE completeness_alerts SET resolved_at = ?, "
                                            "resolution = ? WHERE id = ? AND environment_id = ? "
                                            "AND chain_id = ? AND resolved_at IS NULL"),
                             {now, resolution, id, m_env, qint64(m_chainId)})
                        .numRowsAffected();
    if (tx)
        tx->commit();
    return resolved;
}

int CompletenessAlerts::resolveAbsenceAbove(qint64 above, const QString& resolution)
{
    QSqlQuery q = m_db.run(
        QStringLiteral("UPDATE completeness_alerts SET resolved_at = ?, resolution = ? WHERE "
                       "environment_id = ? AND chain_id = ? AND resolved_at IS NULL AND kind = "
                       "'absence' AND from_block > ?"),
        {store::nowUtc(), resolution, m_env, qint64(m_chainId), above});
    return q.numRowsAffected();
}

} // namespace forkscope::indexer
