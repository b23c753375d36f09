#pragma once

#include <QByteArray>
#include <QList>
#include <QTcpServer>
#include <QUrl>
#include <functional>

namespace forkscope::test {

// A loopback webhook receiver for outbox tests. It follows a script of answers (HTTP
// status, or 0 = accept and never answer) for the first requests, then a pattern (by
// default 200 for everything), and records every request with its Idempotency-Key and
// the status it was given.
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
    // The status for the request with this index (0-based, counted over all requests).
    using Pattern = std::function<int(qsizetype index)>;

    explicit WebhookRecorder(QList<int> script = {}, QObject* parent = nullptr);
    // After the script: `pattern` decides each answer.
    void setPattern(Pattern pattern) { m_pattern = std::move(pattern); }
    // A sink that fails every other request with `failStatus`, starting with the first.
    static Pattern alternating(int failStatus = 500);
    // Each request fails with `failStatus` with probability 1/2, from a seeded generator
    // (the same seed gives the same answers).
    static Pattern flapping(quint32 seed, int failStatus = 500);

    QUrl url() const;
    const QList<Request>& requests() const { return m_requests; }
    // Keys that got a 2xx, in arrival order (the Idempotency-Key header).
    QList<QByteArray> acceptedKeys() const;
    // Event keys that got a 2xx, in arrival order: a batch request (a JSON array body)
    // counts once for each element's eventKey, a single-row request for its header key.
    QList<QByteArray> acceptedEventKeys() const;
    // The eventKey of each element of a batch body, in order (empty if not an array).
    static QList<QByteArray> batchEventKeys(const QByteArray& body);

private:
    void onConnection();
    QList<int> m_script;
    Pattern m_pattern;
    QList<Request> m_requests;
};

} // namespace forkscope::test
