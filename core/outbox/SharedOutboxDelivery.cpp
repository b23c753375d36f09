#include "SharedOutboxDelivery.h"
#include "concurrency/StoppablePause.h"
#include "coord/SessionLock.h"
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

SharedDeliveryResult SharedOutboxDelivery::run(const std::function<void(const QString&)>& say)
{
    PgConnection::Options options;
    options.applicationName = QStringLiteral("forkscope %1").arg(m_owner);
    auto db = PgConnection::open(m_url, options);
    coord::SessionLock lock(*db, QStringLiteral("outbox"), m_env, m_chainId);
    const QByteArray env = m_env.toUtf8();
    const QByteArray chain = QByteArray::number(m_chainId);
    const auto stopping = [&] { return m_stop && m_stop->stopRequested(); };
    const auto pause = [&](std::chrono::milliseconds ms) {
        concurrency::pauseUnlessStopped(ms, m_stop);
    };

    SharedDeliveryResult result;
    int streak = 0;
    while (!stopping()) {
        if (!lock.held()) {
            if (!lock.tryAcquire()) {
                // Another process delivers; wait for it to finish, or to die and leave it.
                const qint64 pending =
                    db->run("shared_outbox_pending",
                            "SELECT count(*) FROM outbox WHERE environment_id = $1 AND "
                            "chain_id = $2 AND delivered_at IS NULL AND failed_at IS NULL",
                            {env, chain})
                        .int64(0, 0);
                if (pending == 0)
                    break;
                pause(std::chrono::milliseconds(200));
                continue;
            }
            result.led = true;
            say(QStringLiteral("outbox: %1 delivers (it holds the outbox lock of %2)")
                    .arg(m_owner, m_env));
        } else if (!lock.stillHeld()) {
            say(QStringLiteral("outbox: %1 lost the outbox lock; another process delivers")
                    .arg(m_owner));
            continue;
        }
        const auto page = db->run(
            "shared_outbox_page",
            "SELECT id, block_number, event_key, payload FROM outbox WHERE environment_id = $1 "
            "AND chain_id = $2 AND delivered_at IS NULL AND failed_at IS NULL ORDER BY "
            "block_number, id LIMIT $3",
            {env, chain, QByteArray::number(std::max(1, m_sink.maxBatch()))});
        if (page.rows() == 0)
            break;
        QList<OutboxRow> rows;
        for (int i = 0; i < page.rows(); ++i)
            rows << OutboxRow{page.int64(i, 0), std::uint64_t(page.int64(i, 1)),
                              QString::fromUtf8(page.text(i, 2)), page.text(i, 3)};
        // A batch the sink refuses for good goes again one row at a time, so only the row
        // the sink refuses is marked failed (as OutboxDispatcher does).
        QList<QList<OutboxRow>> sends{rows};
        for (qsizetype s = 0; s < sends.size() && !stopping(); ++s) {
            const DeliveryResult r = m_sink.deliver(sends[s]);
            if (r.outcome == DeliveryResult::Outcome::Delivered) {
                db->run("shared_outbox_done",
                        "UPDATE outbox_store SET delivered_at = clock_timestamp(), attempts = "
                        "attempts + 1, last_error = NULL WHERE id = ANY($1::bigint[]) AND "
                        "delivered_at IS NULL",
                        {idArray(sends[s])});
                result.delivered += sends[s].size();
                streak = 0;
            } else if (r.outcome == DeliveryResult::Outcome::Failed && sends[s].size() > 1) {
                for (const OutboxRow& one : sends[s])
                    sends.append(QList<OutboxRow>{one});
            } else if (r.outcome == DeliveryResult::Outcome::Failed) {
                db->run("shared_outbox_failed",
                        "UPDATE outbox_store SET failed_at = clock_timestamp(), attempts = "
                        "attempts + 1, last_error = $2 WHERE id = ANY($1::bigint[])",
                        {idArray(sends[s]), r.detail.toUtf8()});
                ++result.failed;
                streak = 0;
                say(QStringLiteral("outbox: %1 refused for good: %2")
                        .arg(sends[s].first().eventKey, r.detail));
            } else {
                db->run("shared_outbox_retry",
                        "UPDATE outbox_store SET attempts = attempts + 1, last_error = $2 WHERE "
                        "id = ANY($1::bigint[])",
                        {idArray(sends[s]), r.detail.toUtf8()});
                ++result.retries;
                pause(m_backoff.delay(++streak));
                break; // nothing overtakes a row that must be retried
            }
        }
    }
    result.stopped = stopping();
    return result;
}

} // namespace forkscope::outbox
