#include "EngineHost.h"
#include "DbSummary.h"
#include "DisplayState.h"
#include "EngineHostSession.h"
#include "IndexingService.h"
#include "LabController.h"
#include "LabRunService.h"
#include "ReadService.h"
#include "store/OpenStore.h"

#include <QDeadlineTimer>
#include <QThread>

namespace forkscope::engine {

EngineHost::EngineHost(QObject* parent) : EngineApi(parent)
{
    qRegisterMetaType<EngineStatus>();
    qRegisterMetaType<ReorgDiff>();
    qRegisterMetaType<forktree::ForkTreeRequest>();
    qRegisterMetaType<forktree::ForkTreeSnapshot>();
    qRegisterMetaType<forktree::ForkBlockRows>();
    qRegisterMetaType<SourceList>();
    qRegisterMetaType<CodeCheck>();
    qRegisterMetaType<TableRequest>();
    qRegisterMetaType<TablePage>();
    qRegisterMetaType<report::CheckpointReport>();
    qRegisterMetaType<foreign::ForeignWatchSnapshot>();
    qRegisterMetaType<foreign::ForeignBlockView>();
    // At most ~10 statuses a second reach the window, however fast the workers report.
    m_publishTimer.setSingleShot(true);
    m_publishTimer.setInterval(100);
    connect(&m_publishTimer, &QTimer::timeout, this, &EngineHost::publishNow);
}

EngineHost::~EngineHost()
{
    shutdown();
    waitForStopped(30000);
}

bool EngineHost::isRunning() const
{
    return m_session != nullptr;
}

void EngineHost::publishSoon()
{
    if (!m_publishTimer.isActive())
        m_publishTimer.start();
}

void EngineHost::publishNow()
{
    m_status.updatedAt = QDateTime::currentDateTimeUtc();
    // One damped lag for every text of the window (LagDamper.h).
    if (m_status.environmentId != m_dampedEnvironment) {
        m_lagDamper.reset();
        m_dampedEnvironment = m_status.environmentId;
    }
    m_status.heldLag = m_lagDamper.hold(currentLag(m_status),
                                        std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::steady_clock::now().time_since_epoch())
                                            .count());
    m_status.lagHeldSet = true;
    emit statusAvailable(m_status);
}

void EngineHost::start(const EngineConfig& config)
{
    shutdown();
    m_config = config;
    m_status = {};
    m_status.connection = EngineStatus::Connection::Starting;
    m_status.managedDevnet = config.managedDevnet;
    m_status.dbPath = store::describeDatabase(config.dbPath); // never a password
    m_status.endpoint = config.managedDevnet ? QString() : config.rpcUrl.toString();
    m_status.confirmations = config.indexer.confirmations;
    m_status.outboxSink = config.webhook.toString(QUrl::RemoveUserInfo);
    m_status.demoTransfersPerTick = config.demoTransfersPerTick;
    m_status.startAttempt = ++m_starts;
    m_status.startedAt = QDateTime::currentDateTimeUtc();
    m_lagDamper.reset();
    m_resetting = false;
    m_session = std::make_unique<Session>();
    Session* s = m_session.get();
    s->config = config;
    s->lab = std::make_unique<LabController>(config);
    s->read = std::make_unique<ReadService>(config.dbPath);
    const auto live = [this, s] { return m_session.get() == s; };
    connect(s->lab.get(), &LabController::ready, this, [this, s, live](const LabSetup& setup) {
        if (live())
            onLabReady(s, setup);
    });
    connect(s->lab.get(), &LabController::failed, this, [this, live](const QString& message) {
        if (!live())
            return;
        m_status.connection = EngineStatus::Connection::Failed;
        m_status.message = message;
        m_status.labReady = false;
        log(QStringLiteral("error"), message);
        publishSoon();
    });
    connect(s->lab.get(), &LabController::snapshotAvailable, this,
            [this, s, live](const LabSnapshot& snap) {
                if (live())
                    onLab(s, snap);
            });
    connect(s->lab.get(), &LabController::logMessage, this, &EngineHost::logMessage);
    connect(s->lab.get(), &LabController::resetDone, this, [this, s, live](const LabSetup& setup) {
        if (!live())
            return;
        s->setup = setup;
        s->liveEnvironment = setup.environmentId;
        s->chainId = 0;
        m_resetting = false;
        if (s->indexing)
            s->indexing->resumeWith(setup.environmentId, setup.contracts, setup.factories);
        s->read->setScope(setup.environmentId, 0);
        m_status.environmentId = setup.environmentId;
        m_status.checkpoint.reset();
        m_status.storedCheckpoint.reset();
        m_status.checkpointHash.clear();
        m_status.recentReorgs.clear();
        m_status.openAlerts.clear();
        m_status.verifiedAt.clear();
        m_status.outboxPending = m_status.outboxDelivered = m_status.outboxFailed = 0;
        m_status.storedReadAt = {};
        if (m_status.indexingPaused)
            log(QStringLiteral("info"), QStringLiteral("indexing resumed by the lab reset"));
        publishSoon();
    });
    connect(s->lab.get(), &LabController::resetFailed, this,
            [this, s, live](const QString& message) {
                if (!live())
                    return;
                m_resetting = false;
                log(QStringLiteral("error"), QStringLiteral("lab reset failed: %1").arg(message));
                // Index again whatever happened: the indexer then says what state it is in.
                if (s->indexing)
                    s->indexing->resumeWith(s->setup.environmentId, s->setup.contracts,
                                            s->setup.factories);
                publishSoon();
            });
    connect(s->read.get(), &ReadService::summaryAvailable, this,
            [this, s, live](const DbSummary& summary) {
                if (live())
                    onSummary(s, summary);
            });
    connect(s->read.get(), &ReadService::tablePageAvailable, this,
            [this, live](const TablePage& page) {
                if (live())
                    emit tablePageAvailable(page);
            });
    connect(s->read.get(), &ReadService::sourceListAvailable, this,
            [this, live](const SourceList& sources) {
                if (live())
                    emit sourceListAvailable(sources);
            });
    connect(s->read.get(), &ReadService::codeChecked, this, [this, live](const CodeCheck& c) {
        if (live())
            emit codeChecked(c);
    });
    connect(s->read.get(), &ReadService::reorgDiffAvailable, this,
            [this, live](const ReorgDiff& diff) {
                if (live())
                    emit reorgDiffAvailable(diff);
            });
    connect(s->read.get(), &ReadService::forkTreeAvailable, this,
            [this, live](const forktree::ForkTreeSnapshot& tree) {
                if (live())
                    emit forkTreeAvailable(tree);
            });
    connect(s->read.get(), &ReadService::forkBlockAvailable, this,
            [this, live](const forktree::ForkBlockRows& rows) {
                if (live())
                    emit forkBlockAvailable(rows);
            });
    connect(s->read.get(), &ReadService::reportAvailable, this,
            [this, s, live](quint64 ticket, const report::CheckpointReport& r) {
                if (!live() || r.environment.id != s->liveEnvironment || !s->indexing) {
                    emit reportAvailable(ticket, r);
                    return;
                }
                // The live environment's: node health as this app polled it since the
                // environment was created (the database does not keep it), and each node
                // as the window shows it now.
                report::CheckpointReport withNodes = r;
                const QDateTime created =
                    QDateTime::fromString(r.environment.createdAt, Qt::ISODateWithMs);
                for (auto& [url, samples] : s->indexing->healthHistory(
                         created.isValid() ? created.toMSecsSinceEpoch() : 0))
                    withNodes.nodeHistory.append({url, samples});
                withNodes.nodesAtExport = m_status.health.nodes;
                emit reportAvailable(ticket, withNodes);
            });
    connect(s->read.get(), &ReadService::reportFailed, this, &EngineHost::reportFailed);
    connect(s->read.get(), &ReadService::logMessage, this, &EngineHost::logMessage);
    connect(s->lab.get(), &LabController::stopped, this, &EngineHost::reap);
    connect(s->read.get(), &ReadService::stopped, this, &EngineHost::reap);
    s->read->start();
    s->lab->start();
    publishSoon();
}

void EngineHost::onLabReady(Session* s, const LabSetup& setup)
{
    s->setup = setup;
    s->liveEnvironment = setup.environmentId;
    s->labReady = true;
    m_status.environmentId = setup.environmentId;
    m_status.endpoint =
        !setup.nodes.isEmpty() ? setup.nodes.first().toString() : setup.anvilUrl.toString();
    m_status.labNodes.clear();
    for (const QUrl& n : setup.nodes)
        m_status.labNodes << n.toString();
    m_status.contracts.clear();
    for (const auto& c : setup.contracts)
        m_status.contracts << c.toHex();
    for (const auto& f : wire::factoryAddresses(setup.factories))
        m_status.contracts << f.toHex();
    s->read->setScope(setup.environmentId, 0);
    s->noContracts = s->config.indexing && setup.contracts.isEmpty() && setup.factories.isEmpty();
    if (s->noContracts) {
        // Nothing will ever be indexed: a failure to show, not a wait.
        m_status.indexerFailure = kNoContracts;
        log(QStringLiteral("warning"), m_status.indexerFailure);
    }
    // With indexing off the service still watches node health (it indexes nothing).
    startIndexing(s, setup);
    publishSoon();
}

void EngineHost::startIndexing(Session* s, const LabSetup& setup)
{
    IndexingOptions o;
    o.indexer = s->config.indexer;
    o.indexer.rpcUrl = QUrl(m_status.endpoint);
    o.indexer.dbPath = s->config.dbPath;
    o.indexer.environmentId = setup.environmentId;
    o.indexer.contracts = s->config.indexing ? setup.contracts : QList<chain::Address>{};
    o.indexer.factories = s->config.indexing ? setup.factories : QList<wire::FactorySource>{};
    o.healthNodes = !setup.nodes.isEmpty()       ? setup.nodes
                    : !s->config.nodes.isEmpty() ? s->config.nodes
                                                 : QList<QUrl>{o.indexer.rpcUrl};
    o.healthInterval = std::chrono::milliseconds(500);
    o.healthTimeout = std::chrono::milliseconds(1000);
    o.readyRatio = s->config.readyRatio;
    o.webhook = s->config.webhook;
    o.webhookTimeout = s->config.webhookTimeout;
    // A block the node did not return whole is asked again: once the fault is gone (a cap
    // removed) the alert and the node's mark clear by themselves.
    o.retryIncompleteAfter = std::chrono::seconds(5);
    s->indexing = std::make_unique<IndexingService>(o);
    IndexingService* svc = s->indexing.get();
    LabController* lab = s->lab.get();
    const auto live = [this, s] { return m_session.get() == s; };
    connect(svc, &IndexingService::snapshotAvailable, this,
            [this, s, live](const IndexingSnapshot& snap) {
                if (live())
                    onIndexing(s, snap);
            });
    connect(svc, &IndexingService::healthAvailable, this,
            [this, s, live](const health::HealthSnapshot& h) {
                if (!live())
                    return;
                m_status.health = h;
                // Without an indexer step to say so, the health polls tell whether the
                // node answers at all.
                const bool anyAnswered =
                    std::any_of(h.nodes.cbegin(), h.nodes.cend(), [](const auto& n) {
                        return n.state != health::NodeState::Offline;
                    });
                using C = EngineStatus::Connection;
                if (!anyAnswered && !h.nodes.isEmpty() &&
                    (m_status.connection == C::Starting || m_status.connection == C::Connected)) {
                    m_status.connection = C::Unreachable;
                    m_status.message = h.nodes.first().lastError;
                    s->unreachableFromHealth = true;
                    noteStillUnreachable(s);
                } else if (anyAnswered &&
                           (m_status.connection == C::Starting ||
                            (m_status.connection == C::Unreachable && s->unreachableFromHealth))) {
                    // The node answers again: what said it did not was these polls (with no
                    // indexer step to say otherwise), so they say it is back too.
                    if (m_status.connection == C::Unreachable)
                        log(QStringLiteral("info"),
                            QStringLiteral("%1 answers again").arg(h.nodes.first().url));
                    m_status.connection = C::Connected;
                    m_status.message.clear();
                    s->unreachableFromHealth = false;
                }
                publishSoon();
            });
    connect(svc, &IndexingService::logMessage, this, &EngineHost::logMessage);
    connect(svc, &IndexingService::nodeStateChanged, this,
            [this, live](const QString& node, int from, int to) {
                if (!live())
                    return;
                const QString level = to == int(health::NodeState::CaughtUp)
                                          ? QStringLiteral("info")
                                          : QStringLiteral("warning");
                const QString toName = health::nodeStateName(health::NodeState(to));
                log(level,
                    from == to
                        ? QStringLiteral("node %1: %2").arg(node, toName)
                        : QStringLiteral("node %1: %2 -> %3")
                              .arg(node, health::nodeStateName(health::NodeState(from)), toName));
            });
    connect(svc, &IndexingService::reorged, this,
            [this, s, live](const indexer::RollbackResult& r, const QString& reason) {
                if (!live())
                    return;
                log(QStringLiteral("warning"),
                    QStringLiteral("reorg (%1): checkpoint %2 -> fork %3, depth %4: %5")
                        .arg(reason)
                        .arg(r.oldCheckpoint)
                        .arg(r.forkBlock)
                        .arg(r.depth)
                        .arg(r.undoneText()));
                s->read->refreshNow();
            });
    connect(svc, &IndexingService::restartedAfterCrash, this, [s, live](const QString& point) {
        if (live())
            s->lab->requestVerdict(QStringLiteral("recovery from a crash at %1").arg(point));
    });
    connect(svc, &IndexingService::acknowledgementResent, this,
            [s, live](quint64 from, quint64 to) {
                if (live())
                    s->lab->requestVerdict(
                        QStringLiteral("a lost acknowledgement (batch %1-%2 sent again)")
                            .arg(from)
                            .arg(to));
            });
    connect(svc, &IndexingService::suspended, this, [this, s, live] {
        if (live() && m_resetting)
            s->lab->reset(s->liveEnvironment);
    });
    // The lab stops after the indexer: it archives the environment nothing writes to now.
    // Direct: runs on the indexer's thread as it ends, no GUI event needed.
    connect(
        svc, &IndexingService::stopped, lab, [lab] { lab->requestStop(); }, Qt::DirectConnection);
    connect(svc, &IndexingService::stopped, this, &EngineHost::reap);
    svc->start();
    log(QStringLiteral("info"),
        QStringLiteral("indexing environment %1").arg(o.indexer.environmentId));
}

void EngineHost::shutdown()
{
    if (!m_session)
        return;
    m_session->requestStop();
    m_retiring.push_back(std::move(m_session));
    m_status.connection = EngineStatus::Connection::Stopped;
    m_status.labReady = false;
    m_publishTimer.stop();
    publishNow();
}

void EngineHost::reap()
{
    // A worker said it stopped: join and delete every retired session whose workers have
    // all finished (each join is immediate by then).
    for (auto it = m_retiring.begin(); it != m_retiring.end();) {
        Session* s = it->get();
        const auto finished = [](auto& w) { return !w || w->wait(std::chrono::milliseconds(0)); };
        if (finished(s->indexing) && finished(s->lab) && finished(s->read) &&
            finished(s->foreign)) {
            foldStats(*s);
            it = m_retiring.erase(it);
        } else
            ++it;
    }
    if (m_retiring.empty() && !m_session)
        emit stopped();
}

bool EngineHost::waitForStopped(int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    for (auto& s : m_retiring) {
        if (!s->join(deadline))
            return false;
        foldStats(*s);
    }
    m_retiring.clear();
    return true;
}

namespace {
void fold(QMap<QString, concurrency::LoopThread::Stats>& into, const QString& name,
          const concurrency::LoopThread::Stats& s)
{
    auto& t = into[name];
    t.stepsStarted += s.stepsStarted;
    t.stepsCompleted += s.stepsCompleted;
    t.commandsRun += s.commandsRun;
    t.maxDepth = std::max(t.maxDepth, s.maxDepth);
}
void foldSession(QMap<QString, concurrency::LoopThread::Stats>& into, IndexingService* i,
                 LabController* l, ReadService* r, ForeignWatchService* f = nullptr)
{
    if (f)
        fold(into, QStringLiteral("forkscope-foreign"), f->stats());
    if (i)
        fold(into, QStringLiteral("forkscope-index"), i->stats());
    if (l)
        fold(into, QStringLiteral("forkscope-lab"), l->stats());
    if (r)
        fold(into, QStringLiteral("forkscope-read"), r->stats());
}
} // namespace

void EngineHost::foldStats(const Session& s)
{
    foldSession(m_pastStats, s.indexing.get(), s.lab.get(), s.read.get(), s.foreign.get());
}

QList<EngineHost::WorkerStats> EngineHost::workerStats() const
{
    QMap<QString, concurrency::LoopThread::Stats> all = m_pastStats;
    if (m_session)
        foldSession(all, m_session->indexing.get(), m_session->lab.get(), m_session->read.get(),
                    m_session->foreign.get());
    for (const auto& s : m_retiring)
        foldSession(all, s->indexing.get(), s->lab.get(), s->read.get(), s->foreign.get());
    QList<WorkerStats> out;
    for (auto it = all.cbegin(); it != all.cend(); ++it)
        out.append({it.key(), it.value()});
    return out;
}

} // namespace forkscope::engine
