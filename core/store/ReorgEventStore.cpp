#include "ReorgEventStore.h"
#include "Database.h"
#include "ReorgDiffContract.h"

#include <QSqlQuery>

namespace forkscope::store {

namespace {

constexpr auto kColumns = "id, source_id, detected_at, old_block_number, old_block_hash, "
                          "fork_block_number, fork_block_hash, depth, reason, rows_removed, "
                          "delivered_outbox_rows";

ReorgEventRow readRow(const QSqlQuery& q)
{
    ReorgEventRow e;
    e.id = q.value(0).toLongLong();
    e.sourceId = q.value(1).toString();
    e.detectedAt = q.value(2).toString();
    e.oldBlockNumber = q.value(3).toLongLong();
    e.oldBlockHash = q.value(4).toString();
    e.forkBlockNumber = q.value(5).toLongLong();
    e.forkBlockHash = q.value(6).toString();
    e.depth = q.value(7).toLongLong();
    e.reason = q.value(8).toString();
    e.rowsRemoved = q.value(9).toLongLong();
    e.deliveredOutboxRows = q.value(10).toLongLong();
    return e;
}

std::optional<qint64> optionalInt(const QVariant& v)
{
    return v.isNull() ? std::nullopt : std::optional<qint64>(v.toLongLong());
}

} // namespace

QList<ReorgEventRow> ReorgEventStore::list(const QString& environmentId, quint64 chainId, int limit)
{
    const QVariantList scope{environmentId, qint64(chainId)};
    QList<ReorgEventRow> out;
    if (limit > 0) {
        QSqlQuery q = m_db.run(QStringLiteral("SELECT %1 FROM reorg_events WHERE environment_id = "
                                              "? AND chain_id = ? ORDER BY id DESC LIMIT %2")
                                   .arg(QLatin1String(kColumns))
                                   .arg(limit),
                               scope);
        while (q.next())
            out.prepend(readRow(q));
        return out;
    }
    QSqlQuery q = m_db.run(QStringLiteral("SELECT %1 FROM reorg_events WHERE environment_id = ? "
                                          "AND chain_id = ? ORDER BY id")
                               .arg(QLatin1String(kColumns)),
                           scope);
    while (q.next())
        out.append(readRow(q));
    return out;
}

std::optional<ReorgEventRow> ReorgEventStore::find(const QString& environmentId, qint64 id)
{
    QSqlQuery q =
        m_db.run(QStringLiteral("SELECT %1 FROM reorg_events WHERE id = ? AND environment_id = ?")
                     .arg(QLatin1String(kColumns)),
                 {id, environmentId});
    if (!q.next())
        return std::nullopt;
    return readRow(q);
}

QList<ReorgDiffRow> ReorgEventStore::diffItems(const QString& environmentId, qint64 reorgId,
                                               int limit, bool insertionOrder)
{
    // The view's rows over the store itself: a view has no insertion order to sort by.
    QSqlQuery q = m_db.run(
        QStringLiteral("SELECT kind, block_number, log_index, tx_hash, contract, holder, "
                       "from_addr, to_addr, value, before_value, after_value, event_key FROM "
                       "(%1) WHERE reorg_id = ? AND environment_id = ? ORDER BY %2 LIMIT ?")
            .arg(reorgDiffRowsSql(), insertionOrder
                                         ? QStringLiteral("phase, id")
                                         : QStringLiteral("kind, block_number, log_index")),
        {reorgId, environmentId, limit});
    QList<ReorgDiffRow> out;
    while (q.next()) {
        ReorgDiffRow d;
        d.kind = q.value(0).toString();
        d.blockNumber = optionalInt(q.value(1));
        d.logIndex = optionalInt(q.value(2));
        d.txHash = q.value(3).toString();
        d.contract = q.value(4).toString();
        d.holder = q.value(5).toString();
        d.fromAddr = q.value(6).toString();
        d.toAddr = q.value(7).toString();
        d.value = q.value(8).toString();
        d.beforeValue = q.value(9).toString();
        d.afterValue = q.value(10).toString();
        d.eventKey = q.value(11).toString();
        out.append(d);
    }
    return out;
}

QString ReorgEventStore::transferKey(const QString& txHash, const QString& contract,
                                     const QString& from, const QString& to, const QString& value)
{
    return QStringList{txHash, contract, from, to, value}.join(QLatin1Char('|'));
}

QHash<qint64, QHash<QString, qint64>> ReorgEventStore::diffCounts(const QString& environmentId,
                                                                  quint64 chainId)
{
    QSqlQuery q = m_db.run(QStringLiteral("SELECT reorg_id, kind, count(*) FROM reorg_diff_items "
                                          "WHERE environment_id = ? AND chain_id = ? GROUP BY "
                                          "reorg_id, kind"),
                           {environmentId, qint64(chainId)});
    QHash<qint64, QHash<QString, qint64>> out;
    while (q.next())
        out[q.value(0).toLongLong()].insert(q.value(1).toString(), q.value(2).toLongLong());
    return out;
}

QHash<QString, qint64> ReorgEventStore::countByReason(const QString& environmentId, quint64 chainId)
{
    QSqlQuery q = m_db.run(QStringLiteral("SELECT reason, count(*) FROM reorg_events WHERE "
                                          "environment_id = ? AND chain_id = ? GROUP BY reason"),
                           {environmentId, qint64(chainId)});
    QHash<QString, qint64> out;
    while (q.next())
        out.insert(q.value(0).toString(), q.value(1).toLongLong());
    return out;
}

QList<qint64> ReorgEventStore::depths(const QString& environmentId, quint64 chainId)
{
    QSqlQuery q = m_db.run(QStringLiteral("SELECT depth FROM reorg_events WHERE environment_id = "
                                          "? AND chain_id = ? ORDER BY id"),
                           {environmentId, qint64(chainId)});
    QList<qint64> out;
    while (q.next())
        out << q.value(0).toLongLong();
    return out;
}

} // namespace forkscope::store
