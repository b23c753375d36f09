#include "OutboxThread.h"
#include "JsonLinesSink.h"
#include "OutboxDispatcher.h"
#include "OutboxQueue.h"
#include "WebhookSink.h"
#include "concurrency/LoopThread.h"
#include "store/StoreError.h"

namespace forkscope::outbox {

struct OutboxThread::Delivery
{
    std::unique_ptr<OutboxQueue> queue;
    std::unique_ptr<OutboxSink> sink;
    std::unique_ptr<OutboxDispatcher> dispatcher;
    bool delivering = false; // this writer holds the right to deliver
};

OutboxThread::OutboxThread(QueueFactory openQueue, QUrl webhook, QString file,
                           std::chrono::milliseconds webhookTimeout, ErrorHandler onError,
                           int webhookBatch, HolderHandler onHolder)
    : m_openQueue(std::move(openQueue)), m_webhook(std::move(webhook)), m_file(std::move(file)),
      m_webhookTimeout(webhookTimeout), m_webhookBatch(webhookBatch), m_onError(std::move(onError)),
      m_onHolder(std::move(onHolder)),
      m_loop(std::make_unique<concurrency::LoopThread>(QStringLiteral("forkscope-outbox")))
{
    // The queue's connection and the sink's network manager live and die on the thread.
    m_loop->start([this] { open(); }, [this] { return round(); }, [this] { m_delivery.reset(); });
}

OutboxThread::~OutboxThread()
{
    m_loop.reset(); // stops and joins
}

void OutboxThread::setSafeHeight(std::uint64_t h)
{
    const qint64 was = m_safe.exchange(qint64(h));
    if (qint64(h) > was && m_idle)
        m_loop->wake();
}

void OutboxThread::open()
{
    auto d = std::make_unique<Delivery>();
    try {
        d->queue = m_openQueue();
    } catch (const store::StoreError& e) {
        m_onError(e.message());
        return;
    }
    if (!m_webhook.isEmpty())
        d->sink = std::make_unique<WebhookSink>(m_webhook, m_webhookTimeout, m_webhookBatch,
                                                m_loop->stopToken());
    else
        d->sink = std::make_unique<JsonLinesSink>(m_file);
    d->dispatcher = std::make_unique<OutboxDispatcher>(*d->queue, *d->sink);
    d->dispatcher->setStopToken(m_loop->stopToken());
    m_delivery = std::move(d);
}

int OutboxThread::round()
{
    if (!m_delivery)
        return -1; // it could not start, or its environment is archived: nothing to deliver
    // Idle: waiting for a safe height, or the last round found nothing at it. A higher one
    // wakes the thread then, never during a sink's backoff.
    m_idle = false;
    const qint64 safe = m_safe;
    // Marked idle, then read again: a height set in between is seen here or wakes the loop.
    const auto idle = [&](int waitMs) {
        m_idle = true;
        return m_safe != safe ? 0 : waitMs;
    };
    if (safe < 0)
        return idle(-1);
    try {
        const RoundResult r = m_delivery->dispatcher->deliverRound(std::uint64_t(safe));
        if (r.notHolder == m_delivery->delivering) {
            m_delivery->delivering = !r.notHolder;
            if (m_onHolder)
                m_onHolder(m_delivery->delivering);
        }
        if (r.archived) {
            m_onError(r.lastError);
            m_delivery.reset(); // for good: an archived environment never becomes live again
            return -1;
        }
        m_delivered += r.delivered;
        m_failed += r.failed;
        // A blocked round waits as long as the sink's failure streak says (the dispatcher
        // resets it on any answer for good); indexing goes on meanwhile. A round that got
        // answers goes straight on; an empty one polls (rows another writer committed), and
        // so does a writer waiting for another to stop delivering.
        if (r.blocked)
            return int(r.retryAfter.count());
        if (r.notHolder)
            return 200;
        return r.delivered + r.failed > 0 ? 0 : idle(100);
    } catch (const store::StoreError& e) {
        m_onError(e.message());
        return 1000;
    }
}

} // namespace forkscope::outbox
