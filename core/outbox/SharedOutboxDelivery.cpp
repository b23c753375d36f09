#include "SharedOutboxDelivery.h"
#include "concurrency/StoppablePause.h"
#include "coord/SessionLock.h"
#include "indexer/CrashPoints.h"
#include "store/pg/PgConnection.h"

#include <QStringList>

namespace forkscope::outbox {

using store::pg::PgConnection;

namespace {

QByteArray idArray(const QList<OutboxRow>& rows)
{
    QByteArrayList ids;
    for (const OutboxRow& r : rows)
        ids << QByteArray::number(r.id);
    return '{' + ids.join(',') + '}';
}

} // namespace

SharedOutboxDelivery::SharedOutboxDelivery(QString dbUrl, QString environmentId, qint64 chainId,
                                           QString owner, OutboxSink& sink,
                                           concurrency::StopTokenPtr stop, RetryBackoff backoff)
    : m_url(std::move(dbUrl)), m_env(std::move(environmentId)), m_chainId(chainId),
      m_owner(std::move(owner)), m_sink(sink), m_stop(std::move(stop)), m_backoff(backoff)
{
}

SharedOutboxDelivery::~SharedOutboxDelivery() = default;

void SharedOutboxDelivery::connect()
{
    if (m_db)
        return;
    PgConnection::Options options;
    options.applicationName = QStringLiteral("forkscope %1").arg(m_owner);
    m_db = PgConnection::open(m_url, options);
    m_lock =
        std::make_unique<coord::SessionLock>(*m_db, QStringLiteral("outbox"), m_env, m_chainId);
}

qint64 SharedOutboxDelivery::pendingRows()
{
    return m_db
        ->run("shared_outbox_pending",
              "SELECT count(*) FROM outbox WHERE environment_id = $1 AND chain_id = $2 AND "
              "delivered_at IS NULL AND failed_at IS NULL",
              {m_env.toUtf8(), QByteArray::number(m_chainId)})
        .int64(0, 0);
}

SharedDeliveryResult SharedOutboxDelivery::run(const std::function<void(const QString&)>& say)
{
    connect();
    while (!(m_stop && m_stop->stopRequested())) {
        const Pass p = pass(say, 500);
        if (p == Pass::Idle)
            break;
        if (p == Pass::NotHolder) {
            // Another process delivers; wait for it to finish, or to die and leave it.
            if (pendingRows() == 0)
                break;
            concurrency::pauseUnlessStopped(std::chrono::milliseconds(200), m_stop);
        }
    }
    m_result.stopped = m_stop && m_stop->stopRequested();
    return m_result;
}

void SharedOutboxDelivery::deliverPending(const std::function<void(const QString&)>& say,
                                          int maxRows)
{
    connect();
    pass(say, maxRows);
}

SharedOutboxDelivery::Pass
SharedOutboxDelivery::pass(const std::function<void(const QString&)>& say, int maxRows)
{
    const auto stopping = [&] { return m_stop && m_stop->stopRequested(); };
    if (!m_lock->held()) {
        if (!m_lock->tryAcquire())
            return Pass::NotHolder;
        m_result.led = true;
        say(QStringLiteral("outbox: %1 delivers (it holds the outbox lock of %2)")
                .arg(m_owner, m_env));
    } else if (!m_lock->stillHeld()) {
        say(QStringLiteral("outbox: %1 lost the outbox lock; another process delivers")
                .arg(m_owner));
        return Pass::NotHolder;
    }
    const QByteArray env = m_env.toUtf8();
    const QByteArray chain = QByteArray::number(m_chainId);
    int sent = 0;
    while (!stopping() && sent < maxRows) {
        const auto page = m_db->run(
            "shared_outbox_page",
            "SELECT id, block_number, event_key, payload FROM outbox WHERE environment_id = $1 "
            "AND chain_id = $2 AND delivered_at IS NULL AND failed_at IS NULL ORDER BY "
            "block_number, id LIMIT $3",
            {env, chain, QByteArray::number(std::max(1, m_sink.maxBatch()))});
        if (page.rows() == 0)
            return sent == 0 ? Pass::Idle : Pass::Busy;
        QList<OutboxRow> rows;
        for (int i = 0; i < page.rows(); ++i)
            rows << OutboxRow{page.int64(i, 0), std::uint64_t(page.int64(i, 1)),
                              QString::fromUtf8(page.text(i, 2)), page.text(i, 3)};
        // A batch the sink refuses for good goes again one row at a time, so only the row
        // the sink refuses is marked failed (as OutboxDispatcher does).
        QList<QList<OutboxRow>> sends{rows};
        for (qsizetype s = 0; s < sends.size() && !stopping(); ++s) {
            sent += int(sends[s].size());
            const DeliveryResult r = m_sink.deliver(sends[s]);
            if (r.outcome == DeliveryResult::Outcome::Delivered)
                indexer::crashPoint("mid-delivery"); // sent, not yet recorded
            if (r.outcome == DeliveryResult::Outcome::Delivered) {
                m_db->run("shared_outbox_done",
                          "UPDATE outbox_store SET delivered_at = clock_timestamp(), attempts = "
                          "attempts + 1, last_error = NULL WHERE id = ANY($1::bigint[]) AND "
                          "delivered_at IS NULL",
                          {idArray(sends[s])});
                m_result.delivered += sends[s].size();
                m_streak = 0;
            } else if (r.outcome == DeliveryResult::Outcome::Failed && sends[s].size() > 1) {
                for (const OutboxRow& one : sends[s])
                    sends.append(QList<OutboxRow>{one});
            } else if (r.outcome == DeliveryResult::Outcome::Failed) {
                m_db->run("shared_outbox_failed",
                          "UPDATE outbox_store SET failed_at = clock_timestamp(), attempts = "
                          "attempts + 1, last_error = $2 WHERE id = ANY($1::bigint[])",
                          {idArray(sends[s]), r.detail.toUtf8()});
                ++m_result.failed;
                m_streak = 0;
                say(QStringLiteral("outbox: %1 refused for good: %2")
                        .arg(sends[s].first().eventKey, r.detail));
            } else {
                m_db->run("shared_outbox_retry",
                          "UPDATE outbox_store SET attempts = attempts + 1, last_error = $2 "
                          "WHERE id = ANY($1::bigint[])",
                          {idArray(sends[s]), r.detail.toUtf8()});
                ++m_result.retries;
                // Nothing overtakes a row that must be retried: wait, then end the pass.
                concurrency::pauseUnlessStopped(m_backoff.delay(++m_streak), m_stop);
                return Pass::Busy;
            }
        }
    }
    return Pass::Busy;
}

} // namespace forkscope::outbox
