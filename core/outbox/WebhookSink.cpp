#include "WebhookSink.h"

#include <QEventLoop>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QTimer>

namespace forkscope::outbox {

WebhookSink::WebhookSink(QUrl url, std::chrono::milliseconds timeout)
    : m_url(std::move(url)), m_timeout(timeout), m_nam(std::make_unique<QNetworkAccessManager>())
{
    QHostAddress a;
    if (m_url.host() == QLatin1String("localhost") ||
        (a.setAddress(m_url.host()) && a.isLoopback()))
        m_nam->setProxy(QNetworkProxy::NoProxy);
}

WebhookSink::~WebhookSink() = default;

DeliveryResult WebhookSink::deliver(const OutboxRow& row)
{
    QNetworkRequest req(m_url);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    req.setRawHeader("Idempotency-Key", row.eventKey.toUtf8());
    QNetworkReply* reply = m_nam->post(req, row.payload);
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
    if (!reply->isFinished())
        loop.exec(QEventLoop::ExcludeUserInputEvents);
    if (!reply->isFinished())
        reply->abort();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString error = reply->errorString();
    reply->deleteLater();
    if (timedOut)
        return {DeliveryResult::Outcome::Retry,
                QStringLiteral("webhook timed out after %1 ms").arg(m_timeout.count())};
    if (status >= 200 && status < 300)
        return {DeliveryResult::Outcome::Delivered, {}};
    if (status >= 400 && status < 500)
        return {DeliveryResult::Outcome::Failed,
                QStringLiteral("webhook refused with HTTP %1").arg(status)};
    if (status >= 500)
        return {DeliveryResult::Outcome::Retry,
                QStringLiteral("webhook answered HTTP %1").arg(status)};
    return {DeliveryResult::Outcome::Retry, QStringLiteral("webhook unreachable: %1").arg(error)};
}

} // namespace forkscope::outbox
