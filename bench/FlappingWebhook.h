#pragma once

#include <QByteArray>
#include <QRandomGenerator>
#include <QSet>
#include <QTcpServer>
#include <QUrl>

namespace forkscope::bench {

// A loopback webhook that fails a share of its requests with HTTP 503, the way a flapping
// receiver does, and deduplicates what it accepts on the event key, as docs/cli.md asks a
// consumer to. Failures follow a seeded generator (the same seed gives the same answers)
// or strictly alternate. Understands the single-row (Idempotency-Key header) and the
// batch form (a JSON array of {"eventKey", ...}).
class FlappingWebhook : public QTcpServer
{
public:
    enum class Pattern { Random, Alternate };
    FlappingWebhook(Pattern pattern, double failRate, quint32 seed);
    QUrl url() const;

    qint64 requests = 0;
    qint64 failedRequests = 0;
    qint64 acceptedRows = 0;  // rows in 2xx requests, duplicates included
    qint64 duplicateRows = 0; // accepted rows whose key had been accepted before
    QSet<QByteArray> keys;    // distinct keys accepted

private:
    void onConnection();
    bool fails();
    void accept(const QByteArray& idempotencyKey, const QByteArray& body);

    Pattern m_pattern;
    double m_failRate;
    QRandomGenerator m_random;
};

} // namespace forkscope::bench
