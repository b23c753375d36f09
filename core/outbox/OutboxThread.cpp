#include "OutboxThread.h"
#include "JsonLinesSink.h"
#include "OutboxDispatcher.h"
#include "WebhookSink.h"
#include "store/Database.h"

#include <QThread>

namespace forkscope::outbox {

OutboxThread::OutboxThread(QString dbPath, QString environmentId, std::uint64_t chainId,
                           QUrl webhook, QString file, std::chrono::milliseconds webhookTimeout,
                           ErrorHandler onError, int webhookBatch)
    : m_dbPath(std::move(dbPath)), m_env(std::move(environmentId)), m_chainId(chainId),
      m_webhook(std::move(webhook)), m_file(std::move(file)), m_webhookTimeout(webhookTimeout),
      m_webhookBatch(webhookBatch), m_onError(std::move(onError))
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
    std::unique_ptr<store::Database> db;
    try {
        db = store::Database::open(m_dbPath);
    } catch (const store::StoreError& e) {
        m_onError(e.message());
        return;
    }
    std::unique_ptr<OutboxSink> sink;
    if (!m_webhook.isEmpty())
        sink = std::make_unique<WebhookSink>(m_webhook, m_webhookTimeout, m_webhookBatch);
    else
        sink = std::make_unique<JsonLinesSink>(m_file);
    OutboxDispatcher dispatcher(*db, m_env, m_chainId, *sink);
    while (!m_stop) {
        const qint64 safe = m_safe;
        int sleepMs = 100;
        if (safe >= 0) {
            try {
                const RoundResult r = dispatcher.deliverRound(std::uint64_t(safe));
                if (r.archived) {
                    m_onError(r.lastError);
                    return; // for good: an archived environment never becomes live again
                }
                m_delivered += r.delivered;
                m_failed += r.failed;
                // A blocked round waits as long as the sink's failure streak says (the
                // dispatcher resets it on any answer for good); indexing goes on meanwhile.
                // A round that got answers goes straight on; an empty one polls.
                if (r.blocked)
                    sleepMs = int(r.retryAfter.count());
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
