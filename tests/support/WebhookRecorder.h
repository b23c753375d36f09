#pragma once

#include <QByteArray>
#include <QList>
#include <QTcpServer>
#include <QUrl>

namespace forkscope::test {

// A loopback webhook receiver for outbox tests. It follows a script of answers (HTTP
// status, or 0 = accept and never answer) for the first requests, then answers 200, and
// records every request with its Idempotency-Key and the status it was given.
class WebhookRecorder : public QTcpServer
{
    Q_OBJECT
public:
    struct Request
    {
        QByteArray idempotencyKey;
        QByteArray body;
        int status = 0; // 0: left unanswered
    };

    explicit WebhookRecorder(QList<int> script = {}, QObject* parent = nullptr);
    QUrl url() const;
    const QList<Request>& requests() const { return m_requests; }
    // Keys that got a 2xx, in arrival order.
    QList<QByteArray> acceptedKeys() const;

private:
    void onConnection();
    QList<int> m_script;
    QList<Request> m_requests;
};

} // namespace forkscope::test
