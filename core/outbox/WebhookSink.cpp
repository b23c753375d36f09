#include "WebhookSink.h"
#include "text/Count.h"

#include <QDeadlineTimer>
#include <QEventLoop>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QTimer>

namespace forkscope::outbox {

WebhookSink::WebhookSink(QUrl url, std::chrono::milliseconds timeout, int batch,
                         concurrency::StopTokenPtr stop)
    : m_url(std::move(url)), m_timeout(timeout), m_batch(std::clamp(batch, 1, kMaxBatch)),
      m_stop(std::move(stop)), m_nam(std::make_unique<QNetworkAccessManager>())
{
    QHostAddress a;
    if (m_url.host() == QLatin1String("localhost") ||
        (a.setAddress(m_url.host()) && a.isLoopback()))
        m_nam->setProxy(QNetworkProxy::NoProxy);
}

WebhookSink::~WebhookSink() = default;

QByteArray WebhookSink::batchKey(const QList<OutboxRow>& rows)
{
    if (rows.isEmpty())
        return {};
    return "batch:" + rows.first().eventKey.toUtf8() + ".." + rows.last().eventKey.toUtf8();
}

DeliveryResult WebhookSink::deliver(const QList<OutboxRow>& rows)
{
    if (rows.isEmpty())
        return {DeliveryResult::Outcome::Delivered, {}};
    if (m_batch == 1 && rows.size() == 1)
        return post(rows.first().eventKey.toUtf8(), rows.first().payload, QStringLiteral("row"));
    QByteArray body = "[";
    for (const OutboxRow& row : rows) {
        if (body.size() > 1)
            body += ',';
        body += rowEnvelope(row);
    }
    body += ']';
    return post(batchKey(rows), body,
                QStringLiteral("batch of %1")
                    .arg(text::count(rows.size(), QStringLiteral("outbox row"),
                                     QStringLiteral("outbox rows"))));
}

DeliveryResult WebhookSink::post(const QByteArray& idempotencyKey, const QByteArray& body,
                                 const QString& what)
{
    QNetworkRequest req(m_url);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    req.setRawHeader("Idempotency-Key", idempotencyKey);
    QNetworkReply* reply = m_nam->post(req, body);
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    bool timedOut = false;
    QObject::connect(&timer, &QTimer::timeout, &loop, [&] {
        timedOut = true;
        reply->abort();
    });
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    timer.start(m_timeout);
    // This nested loop serves the network only (concurrency/LoopThread.h). A stop request
    // gives the receiver a short grace to answer, so a request it took is usually recorded
    // as delivered (and retracted if a reorg removes it); a silent one is left behind then
    // instead of after the webhook's timeout.
    bool stopped = false;
    QTimer stopWatch;
    QDeadlineTimer grace(QDeadlineTimer::Forever);
    if (m_stop) {
        QObject::connect(&stopWatch, &QTimer::timeout, &loop, [&] {
            if (!m_stop->stopRequested() || reply->isFinished())
                return;
            if (grace.isForever())
                grace.setRemainingTime(std::min(m_timeout, kStopGrace));
            else if (grace.hasExpired()) {
                stopped = true;
                reply->abort();
            }
        });
        stopWatch.start(25);
    }
    if (!reply->isFinished())
        loop.exec(QEventLoop::ExcludeUserInputEvents);
    if (!reply->isFinished())
        reply->abort();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString error = reply->errorString();
    reply->deleteLater();
    if (stopped)
        return {DeliveryResult::Outcome::Retry,
                QStringLiteral("delivery stopped before the webhook answered (%1); it is sent "
                               "again on the next start")
                    .arg(what)};
    if (timedOut)
        return {
            DeliveryResult::Outcome::Retry,
            QStringLiteral("webhook timed out after %1 ms (%2)").arg(m_timeout.count()).arg(what)};
    if (status >= 200 && status < 300)
        return {DeliveryResult::Outcome::Delivered, {}};
    if (status >= 400 && status < 500)
        return {DeliveryResult::Outcome::Failed,
                QStringLiteral("webhook refused the %1 with HTTP %2").arg(what).arg(status)};
    if (status >= 500)
        return {DeliveryResult::Outcome::Retry,
                QStringLiteral("webhook answered HTTP %1 (%2)").arg(status).arg(what)};
    return {DeliveryResult::Outcome::Retry,
            QStringLiteral("webhook unreachable: %1 (%2)").arg(error, what)};
}

} // namespace forkscope::outbox
