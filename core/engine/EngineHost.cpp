#include "EngineHost.h"
#include "EngineSession.h"

#include <QThread>

namespace forkscope::engine {

EngineHost::EngineHost(QObject* parent) : QObject(parent)
{
    qRegisterMetaType<EngineStatus>();
    qRegisterMetaType<ReorgDiff>();
    qRegisterMetaType<TableRequest>();
    qRegisterMetaType<TablePage>();
    qRegisterMetaType<report::CheckpointReport>();
}

EngineHost::~EngineHost()
{
    shutdown();
}

void EngineHost::start(const EngineConfig& config)
{
    shutdown();
    m_thread = new QThread(this);
    m_thread->setObjectName(QStringLiteral("forkscope-engine"));
    m_session = new EngineSession(config);
    m_session->moveToThread(m_thread);
    connect(m_thread, &QThread::started, m_session, &EngineSession::start);
    connect(m_thread, &QThread::finished, m_session, &QObject::deleteLater);
    connect(m_session, &EngineSession::statusAvailable, this, &EngineHost::statusAvailable,
            Qt::QueuedConnection);
    connect(m_session, &EngineSession::logMessage, this, &EngineHost::logMessage,
            Qt::QueuedConnection);
    connect(m_session, &EngineSession::reorgDiffAvailable, this, &EngineHost::reorgDiffAvailable,
            Qt::QueuedConnection);
    connect(m_session, &EngineSession::tablePageAvailable, this, &EngineHost::tablePageAvailable,
            Qt::QueuedConnection);
    connect(m_session, &EngineSession::reportAvailable, this, &EngineHost::reportAvailable,
            Qt::QueuedConnection);
    connect(m_session, &EngineSession::reportFailed, this, &EngineHost::reportFailed,
            Qt::QueuedConnection);
    m_thread->start();
}

void EngineHost::shutdown()
{
    if (!m_thread)
        return;
    if (m_session && m_thread->isRunning())
        QMetaObject::invokeMethod(m_session, &EngineSession::stop, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
}

template <typename F> void EngineHost::post(F f)
{
    if (m_session)
        QMetaObject::invokeMethod(
            m_session,
            [s = m_session, f] {
                if (s)
                    f(s.data());
            },
            Qt::QueuedConnection);
}

void EngineHost::requestReorgDiff(qint64 id)
{
    post([=](EngineSession* s) { s->requestReorgDiff(id); });
}

void EngineHost::requestTablePage(const TableRequest& request)
{
    post([=](EngineSession* s) { s->requestTablePage(request); });
}

void EngineHost::setDevnetRunning(bool running)
{
    post([=](EngineSession* s) { s->setDevnetRunning(running); });
}

void EngineHost::setIndexingPaused(bool paused)
{
    post([=](EngineSession* s) { s->setIndexingPaused(paused); });
}

void EngineHost::setDemoTraffic(bool on, int transfersPerTick)
{
    post([=](EngineSession* s) { s->setDemoTraffic(on, transfersPerTick); });
}

void EngineHost::injectReorg(int depth, int txMode)
{
    post([=](EngineSession* s) { s->injectReorg(depth, txMode); });
}

void EngineHost::rollbackBlocks(int blocks)
{
    post([=](EngineSession* s) { s->rollbackBlocks(blocks); });
}

void EngineHost::setProxyKnobs(int node, const QJsonObject& changes)
{
    post([=](EngineSession* s) { s->setProxyKnobs(node, changes); });
}

void EngineHost::crashIndexer(const QString& point)
{
    post([=](EngineSession* s) { s->crashIndexer(point); });
}

void EngineHost::checkInvariants(const QString& reason)
{
    post([=](EngineSession* s) { s->checkInvariants(reason); });
}

void EngineHost::resetLab()
{
    post([](EngineSession* s) { s->resetLab(); });
}

void EngineHost::repair(quint64 fromBlock, const QString& node)
{
    post([fromBlock, node](EngineSession* s) { s->repair(fromBlock, node); });
}

void EngineHost::verifyStoredData()
{
    post([](EngineSession* s) { s->verifyStoredData(); });
}

void EngineHost::setVerifyReceipts(bool on)
{
    post([on](EngineSession* s) { s->setVerifyReceipts(on); });
}

quint64 EngineHost::requestReport(const QString& environmentId, bool verify)
{
    const quint64 ticket = m_nextTicket++;
    post([=](EngineSession* s) { s->requestReport(ticket, environmentId, verify); });
    return ticket;
}

bool EngineHost::isRunning() const
{
    return m_thread && m_thread->isRunning();
}

} // namespace forkscope::engine
