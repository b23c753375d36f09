#pragma once

#include <QByteArray>
#include <QHash>
#include <QMutex>
#include <QObject>
#include <QUrl>

class QTcpServer;
class QTcpSocket;
class QThread;

namespace forkscope::lab {

// The lab's own outbox receiver: a loopback webhook that applies each event once, by its
// Idempotency-Key, as a consumer the outbox's at-least-once delivery is written for
// (docs/design.md, "The outbox"). Armed with loseNextAcknowledgement(), it applies the next
// new row it gets and then closes the connection without answering: delivered, and the
// acknowledgement lost. The dispatcher must send that row again with the same key; the
// receiver then answers 200 without applying it twice. What it saw is kept as counts and
// per-key arrivals (bounded), for the lab's verdict. Lives on the thread it serves on.
class LabSink : public QObject
{
    Q_OBJECT
public:
    static constexpr qsizetype kMaxKeys = 1'000'000; // then arrivals stop being kept per key
    static constexpr qsizetype kMaxConnections = 64;

    struct Stats
    {
        qint64 requests = 0;   // complete requests read
        qint64 applied = 0;    // distinct keys applied
        qint64 duplicates = 0; // requests for a key already applied (answered 200)
        qint64 refused = 0;    // malformed or keyless requests (answered 400)
        QByteArray lostKey;    // the key whose answer was dropped (empty: none yet)
        int lostKeyArrivals = 0;
        bool armed = false; // the next new key's answer will be dropped
    };

    explicit LabSink(QObject* parent = nullptr);
    ~LabSink() override;
    // On its thread. Throws DevnetError when it cannot listen.
    void listen();
    QUrl url() const;                          // thread-safe once listening
    void loseNextAcknowledgement();            // thread-safe
    Stats stats() const;                       // thread-safe
    int arrivals(const QByteArray& key) const; // thread-safe; 0: never seen

private:
    void onConnection();
    void onReadable(QTcpSocket* socket);

    QTcpServer* m_server = nullptr;
    mutable QMutex m_mutex;
    QUrl m_url;
    Stats m_stats;
    QHash<QByteArray, int> m_arrivals; // key -> requests that carried it
};

// A new LabSink serving on `thread` (running its event loop), deleted when it finishes.
LabSink* startLabSinkOn(QThread* thread);

} // namespace forkscope::lab
