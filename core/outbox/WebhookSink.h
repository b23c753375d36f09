#pragma once

#include "OutboxSink.h"
#include "concurrency/StopToken.h"

#include <QUrl>
#include <chrono>
#include <memory>

class QNetworkAccessManager;

namespace forkscope::outbox {

// POSTs outbox rows as JSON. 2xx = delivered; timeouts, transport errors and 5xx = retry;
// 4xx = refused (retrying would not change the receiver's mind). Create and use it on one
// thread.
//
// Single-row mode (batch 1, the default): the body is the row's payload, the header
// `Idempotency-Key: <event_key>`.
// Batch mode (batch N > 1): the body is a JSON array of up to N rowEnvelope objects
// ({"id", "eventKey", "blockNumber", "payload"}) in delivery order, the header
// `Idempotency-Key: batch:<first event_key>..<last event_key>`; a 2xx accepts all of them.
// Every request is an array in this mode, even one of a single row. What the receiver
// must deduplicate on is each element's eventKey (see docs/cli.md, "Outbox delivery").
class WebhookSink : public OutboxSink
{
public:
    static constexpr int kMaxBatch = 500;
    // How long a stop waits for the answer to the request in flight (at most the timeout).
    static constexpr std::chrono::milliseconds kStopGrace{2000};

    // `stop`: after a stop request the request in flight gets kStopGrace to be answered,
    // then is abandoned (an answer for retry).
    WebhookSink(QUrl url, std::chrono::milliseconds timeout, int batch = 1,
                concurrency::StopTokenPtr stop = {});
    ~WebhookSink() override;
    QString describe() const override { return QStringLiteral("webhook %1").arg(m_url.toString()); }
    int maxBatch() const override { return m_batch; }
    DeliveryResult deliver(const QList<OutboxRow>& rows) override;

    // The Idempotency-Key of a batch request carrying `rows`.
    static QByteArray batchKey(const QList<OutboxRow>& rows);

private:
    DeliveryResult post(const QByteArray& idempotencyKey, const QByteArray& body,
                        const QString& what);

    QUrl m_url;
    std::chrono::milliseconds m_timeout;
    int m_batch;
    concurrency::StopTokenPtr m_stop;
    std::unique_ptr<QNetworkAccessManager> m_nam;
};

} // namespace forkscope::outbox
