#include "OutboxThread.h"
#include "JsonLinesSink.h"
#include "OutboxDispatcher.h"
#include "OutboxQueue.h"
#include "WebhookSink.h"
#include "store/StoreError.h"

#include <QThread>

namespace forkscope::outbox {

OutboxThread::OutboxThread(QueueFactory openQueue, QUrl webhook, QString file,
                           std::chrono::milliseconds webhookTimeout, ErrorHandler onError,
                           int webhookBatch, HolderHandler onHolder)
    : m_openQueue(std::move(openQueue)), m_webhook(std::move(webhook)), m_file(std::move(file)),
      m_webhookTimeout(webhookTimeout), m_webhookBatch(webhookBatch), m_onError(std::move(onError)),
      m_onHolder(std::move(onHolder))
{
    m_thread.reset(QThread::create([this] { run(); }));
    m_thread->setObjectName(QStringLiteral("forkscope-outbox"));
    m_thread->start();
}

OutboxThread::~OutboxThread()
{
    m_stop = true;
    m_thread->wait();
}

void OutboxThread::run()
{
    std::unique_ptr<OutboxQueue> queue;
    try {
        queue = m_openQueue();
    } catch (const store::StoreError& e) {
        m_onError(e.message());
        return;
    }
    std::unique_ptr<OutboxSink> sink;
    if (!m_webhook.isEmpty())
        sink = std::make_unique<WebhookSink>(m_webhook, m_webhookTimeout, m_webhookBatch);
    else
        sink = std::make_unique<JsonLinesSink>(m_file);
    OutboxDispatcher dispatcher(*queue, *sink);
    bool delivering = false;
    while (!m_stop) {
        const qint64 safe = m_safe;
        int sleepMs = 100;
        if (safe >= 0) {
            try {
                const RoundResult r = dispatcher.deliverRound(std::uint64_t(safe));
                if (r.notHolder == delivering) {
                    delivering = !r.notHolder;
                    if (m_onHolder)
                        m_onHolder(delivering);
                }
                if (r.archived) {
                    m_onError(r.lastError);
                    return; // for good: an archived environment never becomes live again
                }
                m_delivered += r.delivered;
                m_failed += r.failed;
                // A blocked round waits as long as the sink's failure streak says (the
                // dispatcher resets it on any answer for good); indexing goes on meanwhile.
                // A round that got answers goes straight on; an empty one polls, and so does
                // a writer waiting for another to stop delivering.
                if (r.blocked)
                    sleepMs = int(r.retryAfter.count());
                else if (r.notHolder)
                    sleepMs = 200;
                else
                    sleepMs = r.delivered + r.failed > 0 ? 0 : 100;
            } catch (const store::StoreError& e) {
                m_onError(e.message());
                sleepMs = 1000;
            }
        }
        for (int waited = 0; waited < sleepMs && !m_stop; waited += 20)
            QThread::msleep(20);
    }
}

} // namespace forkscope::outbox
