// EngineHost's commands: each is forwarded to the worker that carries it out (the lab, the
// indexer or the read side), or refused with one line saying why.
#include "EngineHostSession.h"
#include "indexer/CrashPoints.h"
#include "lab/ReorgInjector.h"

namespace forkscope::engine {

void EngineHost::liftHalt(Session* s)
{
    // The stop the indexer is in is over once the command runs: a verdict asked for now
    // waits for it to catch up, not for the snapshots still saying it is stopped.
    s->haltsLifted = s->haltCount;
    if (s->haltForwarded) {
        s->haltForwarded = false;
        s->lab->indexerHalted(s->liveEnvironment, 0, QString());
    }
}

bool EngineHost::labAction(const QString& action)
{
    if (!m_session || !m_config.managedDevnet) {
        log(QStringLiteral("error"),
            QStringLiteral("%1: the lab controls need the managed anvil running").arg(action));
        return false;
    }
    if (m_resetting || !m_session->indexing) {
        log(QStringLiteral("error"),
            QStringLiteral("%1: the lab is still being set up (demo token, indexer); try again "
                           "once the Lab toolbar is enabled")
                .arg(action));
        return false;
    }
    return true;
}

void EngineHost::setIndexingPaused(bool paused)
{
    if (m_session && m_session->indexing)
        m_session->indexing->setPaused(paused);
}

void EngineHost::requestReorgDiff(qint64 id)
{
    if (m_session)
        m_session->read->requestReorgDiff(id);
}

void EngineHost::requestForkTree(const forktree::ForkTreeRequest& request)
{
    if (m_session)
        m_session->read->requestForkTree(request);
}

void EngineHost::requestForkBlock(const chain::Hash32& hash)
{
    if (m_session)
        m_session->read->requestForkBlock(hash);
}

void EngineHost::requestTablePage(const TableRequest& request)
{
    if (m_session)
        m_session->read->requestTablePage(request);
}

void EngineHost::requestSourceList()
{
    if (m_session)
        m_session->read->requestSourceList();
}

quint64 EngineHost::requestCodeCheck(const QString& address)
{
    const quint64 ticket = m_nextTicket++;
    if (m_session) {
        m_session->read->requestCodeCheck(ticket, address);
    } else {
        CodeCheck c;
        c.ticket = ticket;
        c.address = address;
        c.error = QStringLiteral("the engine is not running: start it first");
        // Queued, as every answer: the caller stores its ticket before the answer arrives.
        QMetaObject::invokeMethod(
            this, [this, c] { emit codeChecked(c); }, Qt::QueuedConnection);
    }
    return ticket;
}

void EngineHost::setDevnetRunning(bool running)
{
    if (m_session)
        m_session->lab->setDevnetRunning(running);
}

void EngineHost::setDemoTraffic(bool on, int transfersPerTick)
{
    if (m_session)
        m_session->lab->setDemoTraffic(on, transfersPerTick);
}

void EngineHost::injectReorg(int depth, int txMode)
{
    if (labAction(QStringLiteral("inject reorg")))
        m_session->lab->injectReorg(depth, txMode);
}

void EngineHost::rollbackBlocks(int blocks)
{
    if (labAction(QStringLiteral("roll back")))
        m_session->lab->rollbackBlocks(blocks);
}

void EngineHost::setProxyKnobs(int node, const QJsonObject& changes)
{
    if (m_session)
        m_session->lab->setProxyKnobs(node, changes);
}

void EngineHost::crashIndexer(const QString& point)
{
    if (!indexer::crashPointNames().contains(point)) {
        log(QStringLiteral("error"),
            QStringLiteral("unknown crash point \"%1\" (one of: %2)")
                .arg(point, indexer::crashPointNames().join(QStringLiteral(", "))));
        return;
    }
    if (!m_session || !m_session->indexing) {
        log(QStringLiteral("error"), QStringLiteral("crash the indexer: nothing is being indexed"));
        return;
    }
    m_session->indexing->armCrash(point);
    if (point == QLatin1String("mid-rollback"))
        m_session->lab->injectReorg(3, int(lab::ReorgTxMode::Keep)); // a rollback needs a reorg
    else
        m_session->lab->sprayOne(); // before/after-commit need something to commit
}

void EngineHost::checkInvariants(const QString& reason)
{
    if (!m_session || !m_session->indexing) {
        log(QStringLiteral("error"), QStringLiteral("invariant check: nothing is being indexed"));
        return;
    }
    m_session->lab->requestVerdict(reason.isEmpty() ? QStringLiteral("a check on request")
                                                    : reason);
}

void EngineHost::resetLab()
{
    if (!labAction(QStringLiteral("lab reset")) || !m_status.labReady)
        return;
    // Indexing stops writing first (suspend answers suspended(), then the lab resets);
    // nothing may write into the environment being archived.
    m_resetting = true;
    m_status.labReady = false;
    publishSoon();
    m_session->indexing->suspend();
}

void EngineHost::repair(quint64 fromBlock, const QString& node)
{
    if (!m_session || !m_session->indexing) {
        log(QStringLiteral("error"), QStringLiteral("repair needs a running indexer and database"));
        return;
    }
    liftHalt(m_session.get());
    m_session->indexing->repair(fromBlock, node);
    m_status.endpoint = node;
    m_session->read->refreshNow();
}

void EngineHost::setVerifyReceipts(bool on)
{
    if (m_session && m_session->indexing)
        m_session->indexing->setVerifyReceipts(on);
}

void EngineHost::verifyStoredData()
{
    if (!m_session || !m_session->indexing) {
        log(QStringLiteral("error"), QStringLiteral("verify needs a running indexer and database"));
        return;
    }
    m_session->indexing->verifyStoredData();
    m_session->read->refreshNow();
}

void EngineHost::startForkedReplica()
{
    if (labAction(QStringLiteral("forked replica")))
        m_session->lab->startForkedReplica(3);
}

void EngineHost::stopForkedReplica()
{
    if (m_session && m_session->lab)
        m_session->lab->stopForkedReplica();
}

void EngineHost::startSecondWriter(int seconds)
{
    if (labAction(QStringLiteral("two writers")))
        m_session->lab->startSecondWriter(m_session->liveEnvironment, seconds);
}

void EngineHost::loseNextAcknowledgement()
{
    if (m_session && m_session->indexing) {
        m_session->indexing->loseNextAcknowledgement();
        if (m_session->lab)
            m_session->lab->sprayOne(); // a batch to lose the acknowledgement of
    } else
        log(QStringLiteral("error"),
            QStringLiteral("lost acknowledgement: nothing is being indexed"));
}

void EngineHost::addSource(const QString& address, std::optional<quint64> fromBlock)
{
    if (m_session && m_session->indexing)
        m_session->indexing->addSource(address, fromBlock);
    else
        log(QStringLiteral("error"), QStringLiteral("add contract: nothing is being indexed"));
}

void EngineHost::addFactory(const SourceSpec& spec, std::optional<quint64> fromBlock)
{
    if (m_session && m_session->indexing)
        m_session->indexing->addFactory(spec, fromBlock);
    else
        log(QStringLiteral("error"), QStringLiteral("add factory: nothing is being indexed"));
}

void EngineHost::loseNextOutboxAcknowledgement()
{
    if (labAction(QStringLiteral("lost outbox acknowledgement")))
        m_session->lab->loseNextOutboxAcknowledgement();
}

void EngineHost::injectDeepReorg()
{
    if (labAction(QStringLiteral("deep reorg")))
        m_session->lab->injectDeepReorg(
            m_status.maxReorgDepth > 0 ? m_status.maxReorgDepth : m_config.indexer.maxReorgDepth);
}

void EngineHost::raiseReorgLimit(quint64 depth)
{
    if (!m_session || !m_session->indexing)
        return;
    liftHalt(m_session.get());
    m_session->indexing->setMaxReorgDepth(depth);
    m_session->lab->requestVerdict(QStringLiteral("raising the reorg limit to %1").arg(depth));
}

quint64 EngineHost::requestReport(const QString& environmentId, bool verify)
{
    const quint64 ticket = m_nextTicket++;
    if (!m_session) {
        // Answered like any other, after the caller has recorded the ticket.
        QMetaObject::invokeMethod(
            this,
            [this, ticket] {
                emit reportFailed(ticket, QStringLiteral("the engine is not running"));
            },
            Qt::QueuedConnection);
        return ticket;
    }
    m_session->read->requestReport(ticket, environmentId, verify, QUrl(m_status.endpoint),
                                   m_config.indexer.rpcTimeout);
    return ticket;
}

} // namespace forkscope::engine
