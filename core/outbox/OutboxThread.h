#pragma once

#include <QString>
#include <QUrl>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace forkscope::concurrency {
class LoopThread;
}

namespace forkscope::outbox {

class OutboxQueue;

// Runs the OutboxDispatcher on its own thread with its own database connection, so a slow
// or dead sink never holds up indexing. The indexer publishes the safe height; the
// dispatcher never delivers above it. With several writers on one environment, the queue
// lets one of them deliver at a time; the others wait here to take over.
//
// Each delivery round is one step of a LoopThread: between rounds it waits for as long as
// the round asked (a sink's backoff, a poll when nothing was pending), and a stop request or
// a higher safe height after an idle round ends the wait at once. A stop sends no further
// batch, and leaves a webhook request unanswered after WebhookSink::kStopGrace behind (its
// rows stay pending and go out again on the next start).
class OutboxThread
{
public:
    // `onError` is called on the outbox thread with a message naming what failed (the
    // command line prints it; the desktop engine forwards it to the event log).
    using ErrorHandler = std::function<void(const QString&)>;
    // Called on the outbox thread: the queue it delivers from (its own connection). Throws
    // StoreError when the database cannot be opened.
    using QueueFactory = std::function<std::unique_ptr<OutboxQueue>()>;
    // Called on the outbox thread when it starts or stops delivering (another writer had the
    // right to, and lost it, or took it).
    using HolderHandler = std::function<void(bool delivers)>;
    // `webhookBatch` > 1 turns on the webhook's batch mode (WebhookSink); a JSON Lines
    // file always takes whole batches.
    OutboxThread(QueueFactory openQueue, QUrl webhook, QString file,
                 std::chrono::milliseconds webhookTimeout, ErrorHandler onError,
                 int webhookBatch = 1, HolderHandler onHolder = {});
    ~OutboxThread(); // stops and joins

    // Thread-safe: nothing above `h` is delivered. A rise wakes an idle thread for a round.
    void setSafeHeight(std::uint64_t h);
    qint64 delivered() const { return m_delivered; }
    qint64 failed() const { return m_failed; }
    QString sinkName() const { return m_webhook.isEmpty() ? m_file : m_webhook.toString(); }

private:
    struct Delivery; // the queue, sink and dispatcher, made and used on the thread
    void open();
    int round(); // one delivery round; how long to wait before the next (LoopThread)

    QueueFactory m_openQueue;
    QUrl m_webhook;
    QString m_file;
    std::chrono::milliseconds m_webhookTimeout;
    int m_webhookBatch;
    std::atomic<qint64> m_safe{-1};
    std::atomic<bool> m_idle{false}; // the last round had nothing to deliver
    std::atomic<qint64> m_delivered{0};
    std::atomic<qint64> m_failed{0};
    ErrorHandler m_onError;
    HolderHandler m_onHolder;
    std::unique_ptr<Delivery> m_delivery;
    std::unique_ptr<concurrency::LoopThread> m_loop; // last: stopped and joined first
};

} // namespace forkscope::outbox
