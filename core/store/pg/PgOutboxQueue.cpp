#include "PgOutboxQueue.h"
#include "PgConnection.h"
#include "PgContract.h"
#include "PgPendingOutbox.h"
#include "coord/SessionLock.h"

namespace forkscope::store::pg {

namespace {

QByteArray idArray(const QList<outbox::OutboxRow>& rows)
{
    QByteArrayList ids;
    for (const outbox::OutboxRow& r : rows)
        ids << QByteArray::number(r.id);
    return '{' + ids.join(',') + '}';
}

} // namespace

PgOutboxQueue::PgOutboxQueue(const QString& url, QString environmentId, std::uint64_t chainId,
                             const QString& owner)
    : m_environmentId(std::move(environmentId)), m_env(m_environmentId.toUtf8()),
      m_chain(QByteArray::number(qulonglong(chainId)))
{
    PgConnection::Options options;
    options.applicationName = QStringLiteral("forkscope %1 (outbox)").arg(owner);
    m_db = PgConnection::open(url, options);
    m_lock = std::make_unique<coord::SessionLock>(*m_db, QStringLiteral("outbox"), m_environmentId,
                                                  qint64(chainId));
}

// The lock goes with its connection.
PgOutboxQueue::~PgOutboxQueue()
{
    m_lock.reset();
}

QString PgOutboxQueue::describe() const
{
    return m_db->displayUrl();
}

bool PgOutboxQueue::mayDeliver()
{
    return m_lock->held() ? m_lock->stillHeld() : m_lock->tryAcquire();
}

QString PgOutboxQueue::archivedAt()
{
    const PgResult r = m_db->run("outbox_archived",
                                 "SELECT archived_at FROM environments WHERE environment_id = $1 "
                                 "AND archived_at IS NOT NULL",
                                 {m_env});
    return r.rows() == 0 ? QString() : QString::fromUtf8(r.text(0, 0));
}

QList<outbox::OutboxRow> PgOutboxQueue::next(std::uint64_t safeHeight, int limit,
                                             std::optional<outbox::OutboxRow>* orphan)
{
    // A pending Transfer's row is rendered from its log until delivery takes it: the rows
    // this round may send are stored first, so each has an id (PgPendingOutbox.h).
    storeRenderedOutboxRows(*m_db, m_env, m_chain, safeHeight, limit);
    // Only rows at or below the checkpoint; a row whose log was deleted by hand renders no
    // payload. Within a block, Transfers by log index, then rows that name no
    // log (retractions), as on SQLite.
    static const QByteArray sql =
        "SELECT o.id, o.block_number, coalesce(o.event_key, " + pgOutboxEventKeySql() +
        "), coalesce(o.payload, " + pgOutboxPayloadSql() +
        ") FROM outbox_store o LEFT JOIN log_store l ON l.environment_id = o.environment_id AND "
        "l.chain_id = o.chain_id AND l.block_number = o.block_number AND l.log_index = "
        "o.log_index WHERE o.environment_id = $1 AND o.chain_id = $2 AND o.delivered_at IS NULL "
        "AND o.failed_at IS NULL AND o.block_number <= least($3::bigint, (SELECT "
        "max(c.block_number) FROM checkpoint_store c WHERE c.environment_id = $1 AND c.chain_id "
        "= $2)) ORDER BY o.block_number, o.log_index IS NULL, o.log_index, o.id LIMIT $4";
    const PgResult page = m_db->run(
        "outbox_next", sql.constData(),
        {m_env, m_chain, QByteArray::number(qulonglong(safeHeight)), QByteArray::number(limit)});
    QList<outbox::OutboxRow> rows;
    for (int i = 0; i < page.rows(); ++i) {
        const outbox::OutboxRow row{page.int64(i, 0), std::uint64_t(page.int64(i, 1)),
                                    QString::fromUtf8(page.text(i, 2)), page.text(i, 3)};
        if (page.isNull(i, 3)) {
            *orphan = row;
            break;
        }
        rows.append(row);
    }
    return rows;
}

void PgOutboxQueue::markDelivered(const QList<outbox::OutboxRow>& rows)
{
    // last_error stays: a row delivered after retries still says why it waited, as on SQLite.
    m_db->run("outbox_delivered",
              "UPDATE outbox_store SET delivered_at = clock_timestamp(), attempts = attempts + 1 "
              "WHERE id = ANY($1::bigint[]) AND delivered_at IS NULL",
              {idArray(rows)});
}

void PgOutboxQueue::markFailed(const outbox::OutboxRow& row, const QString& error)
{
    m_db->run("outbox_failed",
              "UPDATE outbox_store SET failed_at = clock_timestamp(), attempts = attempts + 1, "
              "last_error = $2 WHERE id = $1",
              {QByteArray::number(row.id), error.toUtf8()});
}

void PgOutboxQueue::markRetry(const QList<outbox::OutboxRow>& rows, const QString& error)
{
    m_db->run("outbox_retry",
              "UPDATE outbox_store SET attempts = attempts + 1, last_error = $2 WHERE id = "
              "ANY($1::bigint[])",
              {idArray(rows), error.toUtf8()});
}

qint64 PgOutboxQueue::pendingAtOrBelow(std::uint64_t safeHeight)
{
    return pendingOutboxCount(*m_db, m_env, m_chain, safeHeight);
}

} // namespace forkscope::store::pg
