#pragma once

#include "OutboxSink.h"

#include <QUrl>
#include <chrono>
#include <memory>

class QNetworkAccessManager;

namespace forkscope::outbox {

// POSTs each row's payload as JSON with `Idempotency-Key: <event_key>`. 2xx = delivered;
// timeouts, transport errors and 5xx = retry; 4xx = failed (the receiver refused this
// row; retrying would not change its mind). Create and use it on one thread.
class WebhookSink : public OutboxSink
{
public:
    WebhookSink(QUrl url, std::chrono::milliseconds timeout);
    ~WebhookSink() override;
    QString describe() const override { return QStringLiteral("webhook %1").arg(m_url.toString()); }
    DeliveryResult deliver(const OutboxRow& row) override;

private:
    QUrl m_url;
    std::chrono::milliseconds m_timeout;
    std::unique_ptr<QNetworkAccessManager> m_nam;
};

} // namespace forkscope::outbox
