#pragma once

#include <QString>
#include <QUrl>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

class QThread;

namespace forkscope::outbox {

// Runs the OutboxDispatcher on its own thread with its own database connection, so a slow
// or dead sink never holds up indexing. The indexer publishes the safe height; the
// dispatcher never delivers above it.
class OutboxThread
{
public:
    // `onError` is called on the outbox thread with a message naming what failed (the
    // command line prints it; the desktop engine forwards it to the event log).
    using ErrorHandler = std::function<void(const QString&)>;
    // `webhookBatch` > 1 turns on the webhook's batch mode (WebhookSink); a JSON Lines
    // file always takes whole batches.
    OutboxThread(QString dbPath, QString environmentId, std::uint64_t chainId, QUrl webhook,
                 QString file, std::chrono::milliseconds webhookTimeout, ErrorHandler onError,
                 int webhookBatch = 1);
    ~OutboxThread(); // stops and joins

    void setSafeHeight(std::uint64_t h) { m_safe = qint64(h); }
    qint64 delivered() const { return m_delivered; }
    qint64 failed() const { return m_failed; }
    QString sinkName() const { return m_webhook.isEmpty() ? m_file : m_webhook.toString(); }

private:
    void run();

    QString m_dbPath;
    QString m_env;
    std::uint64_t m_chainId;
    QUrl m_webhook;
    QString m_file;
    std::chrono::milliseconds m_webhookTimeout;
    int m_webhookBatch;
    std::atomic<qint64> m_safe{-1};
    std::atomic<bool> m_stop{false};
    std::atomic<qint64> m_delivered{0};
    std::atomic<qint64> m_failed{0};
    ErrorHandler m_onError;
    std::unique_ptr<QThread> m_thread;
};

} // namespace forkscope::outbox
