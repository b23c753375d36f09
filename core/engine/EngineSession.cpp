#include "EngineSession.h"
#include "TableQuery.h"
#include "audit/EnvironmentRepair.h"
#include "audit/StoredDataAuditor.h"
#include "health/NodeHealthMonitor.h"
#include "indexer/CrashPoints.h"
#include "indexer/EnvironmentRegistry.h"
#include "indexer/Indexer.h"
#include "indexer/IndexerErrors.h"
#include "indexer/InvariantChecker.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"
#include "lab/LabReset.h"
#include "lab/ReorgInjector.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/OutboxThread.h"
#include "outbox/SafeHeight.h"
#include "rpc/EthClient.h"
#include "store/Database.h"
#include "wire/SuspectedTruncationError.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QScopeGuard>
#include <QSqlQuery>
#include <QThread>
#include <QTimer>

namespace forkscope::engine {

EngineSession::EngineSession(EngineConfig config, QObject* parent)
    : QObject(parent), m_config(std::move(config))
{
    m_status.managedDevnet = m_config.managedDevnet;
    m_status.dbPath = m_config.dbPath;
    m_status.endpoint = m_config.managedDevnet ? QString() : m_config.rpcUrl.toString();
    m_status.confirmations = m_config.confirmations;
    m_status.outboxSink = m_config.webhook.toString(QUrl::RemoveUserInfo);
    m_status.demoTransfersPerTick = m_config.demoTransfersPerTick;
}

EngineSession::~EngineSession()
{
    stop();
}

void EngineSession::publish(bool force)
{
    // At most ~10 snapshots a second reach the GUI, however fast the indexer commits.
    if (!force && m_sincePublish.isValid() && m_sincePublish.elapsed() < 100)
        return;
    m_sincePublish.start();
    m_status.updatedAt = QDateTime::currentDateTimeUtc();
    emit statusAvailable(m_status);
}

void EngineSession::start()
{
    m_status.connection = EngineStatus::Connection::Starting;
    publish();
    const auto busy = busyScope();
    try {
        if (!m_config.dbPath.isEmpty()) {
            QDir().mkpath(QFileInfo(m_config.dbPath).absolutePath());
            m_db = store::Database::open(m_config.dbPath, store::Database::Options::bulkWriter());
            m_readDb = store::Database::open(m_config.dbPath);
            m_status.schemaVersion = m_db->schemaVersion();
            emit logMessage(QStringLiteral("info"), QStringLiteral("database %1 (schema v%2)")
                                                        .arg(m_config.dbPath)
                                                        .arg(m_db->schemaVersion()));
        }
        QUrl url = m_config.rpcUrl;
        if (m_config.managedDevnet) {
            startDevnet();
            url = m_devnet->url();
            if (m_config.labNodes > 0) {
                startLabProxies(url);
                url = QUrl(m_status.labNodes.first()); // the indexer reads through lab node 1
            }
        }
        m_status.endpoint = url.toString();
        m_rpc = new rpc::JsonRpcClient(url, this);
        m_rpc->setTimeout(m_config.rpcTimeout);
        // The lab's own hands and eyes (demo traffic, reorg injection, the invariant
        // verdict) talk to anvil directly: a fault set on a lab node is for the indexer
        // and the health monitor to cope with, not something that should break the
        // workload or the ground truth the verdict is checked against.
        m_anvilRpc = m_devnet ? new rpc::JsonRpcClient(m_devnet->url(), this) : m_rpc;
        if (m_anvilRpc != m_rpc)
            m_anvilRpc->setTimeout(m_config.rpcTimeout);
        startHealth(url);
        if (m_config.indexing && m_db)
            startIndexing(url);
    } catch (const std::exception& e) {
        m_status.connection = EngineStatus::Connection::Failed;
        m_status.message = QString::fromUtf8(e.what());
        emit logMessage(QStringLiteral("error"), m_status.message);
        publish();
        return;
    }
    if (m_stopRequested)
        return;
    m_pollTimer = new QTimer(this);
    m_pollTimer->setInterval(m_config.pollInterval);
    connect(m_pollTimer, &QTimer::timeout, this, &EngineSession::poll);
    m_pollTimer->start();
    poll();
}

void EngineSession::startDevnet()
{
    if (!m_devnet) {
        m_devnet = std::make_unique<lab::Devnet>();
        connect(m_devnet.get(), &lab::Devnet::exitedUnexpectedly, this,
                [this](int code, const QString& tail) {
                    m_status.connection = EngineStatus::Connection::Failed;
                    m_status.devnetRunning = false;
                    m_status.message =
                        QStringLiteral("managed anvil exited (code %1): %2").arg(code).arg(tail);
                    emit logMessage(QStringLiteral("error"), m_status.message);
                    publish();
                });
    }
    lab::Devnet::Options o;
    // The same port on a restart: every client (indexer, fetch threads, health) keeps its URL.
    o.port = m_devnetPort;
    if (!m_devnetState.isValid())
        throw lab::DevnetError(
            QStringLiteral("cannot create a temporary directory for the devnet's state"));
    // anvil dumps its chain here when stopped and loads it when started again: blocks and
    // hashes survive, so a stop/start is an outage of the same chain, not a new chain.
    o.extraArgs << QStringLiteral("--state")
                << m_devnetState.filePath(QStringLiteral("anvil-state.json"));
    m_devnet->start(o);
    m_devnetPort = m_devnet->port();
    m_status.devnetRunning = true;
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("managed anvil started at %1 (log %2)")
                        .arg(m_devnet->url().toString(), m_devnet->logPath()));
}

void EngineSession::setDevnetRunning(bool running)
{
    if (!m_config.managedDevnet || !m_devnet || m_stopRequested ||
        running == m_status.devnetRunning)
        return;
    const auto busy = busyScope();
    if (!running) {
        if (m_demoTimer)
            m_demoTimer->stop();
        m_devnet->stop();
        m_status.devnetRunning = false;
        emit logMessage(
            QStringLiteral("warning"),
            QStringLiteral("managed anvil stopped (its chain is kept for a restart); the "
                           "indexer waits, checkpoint unchanged"));
        publish();
        return;
    }
    try {
        startDevnet();
        if (m_demoTimer && m_status.demoTraffic)
            m_demoTimer->start();
        if (m_indexTimer && !m_status.indexingPaused)
            m_indexTimer->start(0);
    } catch (const std::exception& e) {
        m_status.message = QString::fromUtf8(e.what());
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("cannot start the managed anvil: %1").arg(m_status.message));
    }
    publish();
}

void EngineSession::requestTablePage(const TableRequest& request)
{
    TablePage page;
    const QString env =
        request.environmentId.isEmpty() ? m_status.environmentId : request.environmentId;
    if (!m_readDb || env.isEmpty()) {
        page.request = request;
        page.atEnd = true;
        page.error = QStringLiteral("no environment is being indexed yet");
    } else {
        try {
            page = TableQuery::fetch(*m_readDb, env, request);
        } catch (const std::exception& e) {
            page.request = request;
            page.atEnd = true;
            page.error = QString::fromUtf8(e.what());
            emit logMessage(QStringLiteral("error"), QStringLiteral("table: %1").arg(page.error));
        }
    }
    emit tablePageAvailable(page);
}

void EngineSession::poll()
{
    if (!m_rpc || m_pollInFlight)
        return;
    m_pollInFlight = true;
    rpc::RpcCall* call = m_rpc->batch(
        {{QStringLiteral("eth_chainId"), {}}, {QStringLiteral("eth_blockNumber"), {}}});
    connect(call, &rpc::RpcCall::finished, this, [this, call] {
        call->deleteLater();
        m_pollInFlight = false;
        const auto before = m_status.connection;
        try {
            const auto& r = call->responses();
            m_status.chainId =
                rpc::EthClient::parseQuantity(r.at(0), QStringLiteral("eth_chainId"));
            m_status.headBlock =
                rpc::EthClient::parseQuantity(r.at(1), QStringLiteral("eth_blockNumber"));
            m_status.connection = EngineStatus::Connection::Connected;
            m_status.message.clear();
            if (before != m_status.connection)
                emit logMessage(QStringLiteral("info"),
                                QStringLiteral("connected to %1, chain id %2")
                                    .arg(m_status.endpoint)
                                    .arg(*m_status.chainId));
        } catch (const rpc::RpcException& e) {
            // An unreachable node says nothing about the chain: keep the last known values
            // and mark them stale rather than clearing them.
            m_status.connection = EngineStatus::Connection::Unreachable;
            m_status.message = e.error().toString();
            if (before != m_status.connection)
                emit logMessage(QStringLiteral("warning"), m_status.message);
        }
        publish();
    });
}

void EngineSession::startHealth(const QUrl& url)
{
    // The monitor polls on its own thread: a step blocked on this one must not delay it.
    health::NodeHealthMonitor::Config hc;
    hc.nodes = m_config.nodes.isEmpty() ? QList<QUrl>{url} : m_config.nodes;
    if (!m_status.labNodes.isEmpty()) {
        hc.nodes.clear();
        for (const QString& n : m_status.labNodes)
            hc.nodes.append(QUrl(n));
    }
    hc.interval = std::chrono::milliseconds(500);
    hc.timeout = std::chrono::milliseconds(1000);
    hc.readyRatio = m_config.readyRatio;
    m_healthThread = new QThread(this);
    m_healthThread->setObjectName(QStringLiteral("forkscope-health"));
    m_monitor = new health::NodeHealthMonitor(hc);
    m_monitor->moveToThread(m_healthThread);
    connect(m_healthThread, &QThread::started, m_monitor, &health::NodeHealthMonitor::start);
    connect(m_healthThread, &QThread::finished, m_monitor, &QObject::deleteLater);
    connect(m_monitor, &health::NodeHealthMonitor::healthAvailable, this,
            [this](const health::HealthSnapshot& h) {
                m_status.health = h;
                publish(false);
            });
    connect(m_monitor, &health::NodeHealthMonitor::nodeStateChanged, this,
            [this](const QString& node, int from, int to) {
                const QString level = to == int(health::NodeState::CaughtUp)
                                          ? QStringLiteral("info")
                                          : QStringLiteral("warning");
                if (from == to)
                    emit logMessage(level,
                                    QStringLiteral("node %1: %2")
                                        .arg(node, health::nodeStateName(health::NodeState(to))));
                else
                    emit logMessage(level,
                                    QStringLiteral("node %1: %2 -> %3")
                                        .arg(node, health::nodeStateName(health::NodeState(from)),
                                             health::nodeStateName(health::NodeState(to))));
            });
    m_healthThread->start();
}

void EngineSession::startIndexing(const QUrl& url)
{
    m_eth = std::make_unique<rpc::EthClient>(*m_rpc);
    indexer::IndexerConfig ic;
    ic.rpcUrl = url;
    ic.dbPath = m_config.dbPath;
    ic.environmentId = m_config.environmentId;
    if (ic.environmentId.isEmpty())
        ic.environmentId =
            m_config.managedDevnet ? lab::LabReset::newEnvironmentId() : QStringLiteral("default");
    if (m_config.managedDevnet) {
        // Something to watch with nothing to configure: a demo token and live transfers.
        deployDemoToken();
        m_demoTimer = new QTimer(this);
        m_demoTimer->setInterval(m_config.demoInterval);
        connect(m_demoTimer, &QTimer::timeout, this, &EngineSession::demoTick);
        m_status.demoTraffic = m_config.demoTraffic;
        if (m_config.demoTraffic)
            m_demoTimer->start();
    }
    ic.contracts = indexedContracts();
    if (ic.contracts.isEmpty()) {
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("no contracts configured: indexing is off"));
        return;
    }
    ic.fetchWorkers = 2;
    ic.fromBlock = m_config.fromBlock;
    ic.confirmations = m_config.confirmations;
    ic.maxReorgDepth = m_config.maxReorgDepth;
    ic.batchSize = m_config.batchSize;
    ic.pollInterval = m_config.pollInterval;
    ic.abiPath = m_config.abiPath;
    m_ic = ic;
    useEnvironment(ic.environmentId, ic.contracts);
    createIndexer();
    m_indexTimer = new QTimer(this);
    m_indexTimer->setSingleShot(true);
    connect(m_indexTimer, &QTimer::timeout, this, &EngineSession::indexStep);
    m_rateClock.start();
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("indexing environment %1").arg(ic.environmentId));
    m_status.labReady = m_config.managedDevnet;
    m_indexTimer->start(0);
}

void EngineSession::createIndexer()
{
    m_indexer = std::make_unique<indexer::Indexer>(m_ic, *m_db, *m_eth);
    m_indexer->onReorg = [this](const indexer::RollbackResult& r, const QString& reason) {
        emit logMessage(
            QStringLiteral("warning"),
            QStringLiteral("reorg (%1): checkpoint %2 -> fork %3, depth %4, %5 rows removed")
                .arg(reason)
                .arg(r.oldCheckpoint)
                .arg(r.forkBlock)
                .arg(r.depth)
                .arg(r.rowsRemoved));
    };
}

void EngineSession::indexStep()
{
    if (!m_indexer || m_stopRequested)
        return;
    int next = 500;
    const auto busy = busyScope();
    try {
        const indexer::IndexerStatus& s = m_indexer->step();
        // Never green over a gap: an open completeness alert outranks "synced".
        m_status.indexerState = m_status.indexingPaused ? QStringLiteral("paused")
                                : !m_status.openAlerts.isEmpty()
                                    ? QStringLiteral("data incomplete")
                                    : indexer::IndexerStatus::stateName(s.state);
        m_status.checkpoint = s.checkpoint;
        if (s.head)
            m_status.headBlock = s.head;
        m_status.transfersCommitted = s.transfersCommitted;
        m_status.reorgs = s.reorgs;
        m_status.truncationHalvings = s.truncationHalvings;
        m_status.indexerTimeouts = s.timeouts;
        m_status.inconsistencies = s.inconsistencies;
        m_status.completeness = s.completeness;
        if (m_monitor && s.completeness.truncations() > 0 && s.completeness.lastShortBlock)
            m_monitor->reportDroppedLogs(m_status.endpoint, s.completeness.truncations(),
                                         *s.completeness.lastShortBlock);
        if (s.blocksCommitted != m_status.blocksCommitted ||
            s.state == indexer::IndexerStatus::State::Reorged)
            m_status.lastCommitAt = QDateTime::currentDateTimeUtc();
        m_status.blocksCommitted = s.blocksCommitted;
        if (m_rateClock.elapsed() >= 1000) {
            const double ms = double(m_rateClock.restart());
            m_status.eventsPerSecond = double(s.logsCommitted - m_rateBase) * 1000.0 / ms;
            m_status.blocksPerSecond = double(s.blocksCommitted - m_blockRateBase) * 1000.0 / ms;
            m_rateBase = s.logsCommitted;
            m_blockRateBase = s.blocksCommitted;
        }
        if (!m_outbox && !m_config.webhook.isEmpty() && m_indexer->chainId() != 0)
            startOutbox();
        updateSafeHeight();
        if (s.state == indexer::IndexerStatus::State::Reorged || !m_sinceDbSummary.isValid() ||
            m_sinceDbSummary.elapsed() >= 1000)
            refreshDbSummary();
        if (s.state == indexer::IndexerStatus::State::Synced && !m_verdictAction.isEmpty())
            runVerdict();
        if (s.state == indexer::IndexerStatus::State::Syncing ||
            s.state == indexer::IndexerStatus::State::Reorged)
            next = 0;
        else if (s.retryDelayMs > 0)
            next = s.retryDelayMs;
        publish(false);
    } catch (const indexer::SimulatedCrash& e) {
        restartIndexerAfterCrash(e.point());
        return;
    } catch (const wire::SuspectedTruncationError& e) {
        // The provider did not return a block whole: nothing from that batch was committed.
        // Shown loudly (the banner, "data incomplete") and counted against the node, not
        // retried into the same wall; Repair... fetches it again, from another node.
        ++m_status.suspectedTruncations;
        m_status.indexerState = QStringLiteral("data incomplete");
        m_status.message = QString::fromUtf8(e.what());
        if (m_monitor)
            m_monitor->reportDroppedLogs(e.node.isEmpty() ? m_status.endpoint : e.node,
                                         m_status.suspectedTruncations, e.block);
        refreshDbSummary();
        emit logMessage(QStringLiteral("error"), m_status.message);
        publish();
        return;
    } catch (const std::exception& e) {
        // Fatal for the indexer (deep reorg, chain reset, database): shown, not retried.
        m_status.indexerState = QStringLiteral("stopped");
        m_status.message = QString::fromUtf8(e.what());
        emit logMessage(QStringLiteral("error"), m_status.message);
        publish();
        return;
    }
    if (!m_stopRequested && !m_status.indexingPaused)
        m_indexTimer->start(next);
}

void EngineSession::startOutbox()
{
    // Delivery runs on its own thread and connection: a slow or dead webhook never
    // holds up indexing, and the dispatcher never delivers above the safe height.
    m_outbox = std::make_unique<outbox::OutboxThread>(
        m_config.dbPath, m_status.environmentId, m_indexer->chainId(), m_config.webhook, QString(),
        m_config.webhookTimeout, [this](const QString& m) {
            QMetaObject::invokeMethod(
                this,
                [this, m] {
                    emit logMessage(QStringLiteral("error"), QStringLiteral("outbox: %1").arg(m));
                },
                Qt::QueuedConnection);
        });
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("outbox: delivering to %1 at or below head - %2")
                        .arg(m_status.outboxSink)
                        .arg(m_config.confirmations));
}

void EngineSession::restartIndexerAfterCrash(const QString& point)
{
    // What kill -9 leaves: the process state is gone, the database keeps only what was
    // committed. The indexer object goes, and so does its connection (closing it rolls an
    // open transaction back, as SQLite does for a dead process); a new one starts from
    // the database, with the restart verification a fresh process would run.
    m_status.crashArmed.clear();
    ++m_status.indexerRestarts;
    m_indexer.reset();
    m_outbox.reset();
    m_db->rollback();
    m_db.reset();
    emit logMessage(
        QStringLiteral("warning"),
        QStringLiteral("indexer crashed at %1 (simulated kill -9); restarting it from the database")
            .arg(point));
    m_status.indexerState = QStringLiteral("crashed, restarting");
    publish();
    QTimer::singleShot(1000, this, [this, point] {
        if (m_stopRequested)
            return;
        try {
            m_db = store::Database::open(m_config.dbPath, store::Database::Options::bulkWriter());
            createIndexer();
            emit logMessage(QStringLiteral("info"),
                            QStringLiteral("indexer restarted after the crash at %1").arg(point));
            requestVerdict(QStringLiteral("recovery from a crash at %1").arg(point));
            if (!m_status.indexingPaused)
                m_indexTimer->start(0);
        } catch (const std::exception& e) {
            m_status.indexerState = QStringLiteral("stopped");
            m_status.message = QString::fromUtf8(e.what());
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("indexer restart failed: %1").arg(m_status.message));
            publish();
        }
    });
}

void EngineSession::requestVerdict(const QString& action)
{
    m_verdictAction = action;
    m_status.verdict.state = InvariantVerdict::State::Checking;
    m_status.verdict.action = action;
    m_status.verdict.summary = QStringLiteral("waiting for the indexer to catch up with the node");
    m_status.verdict.at = QDateTime::currentDateTimeUtc();
    publish();
}

void EngineSession::runVerdict()
{
    // Checked on the read connection (committed rows only) against the node, after the
    // indexer reached the head: the DB must be exactly the node's chain up to the checkpoint.
    const QString action = std::exchange(m_verdictAction, QString());
    InvariantVerdict v;
    v.action = action;
    v.at = QDateTime::currentDateTimeUtc();
    try {
        // Against anvil itself in a managed lab: the ground truth, not a faulty lab node.
        rpc::EthClient truth(*m_anvilRpc);
        const indexer::InvariantReport r =
            indexer::InvariantChecker(*m_readDb, truth)
                .check(m_status.environmentId, m_ic.sourceId, m_ic.contracts);
        v.state = r.ok() ? InvariantVerdict::State::Holds : InvariantVerdict::State::Violated;
        v.summary = r.summary();
    } catch (const std::exception& e) {
        v.state = InvariantVerdict::State::Unavailable;
        v.summary = QStringLiteral("could not check: %1").arg(QString::fromUtf8(e.what()));
    }
    m_status.verdict = v;
    const QString level =
        v.state == InvariantVerdict::State::Holds ? QStringLiteral("ok") : QStringLiteral("fail");
    emit logMessage(level, QStringLiteral("invariants after %1: %2").arg(action, v.summary));
    publish();
}

bool EngineSession::labAvailable(const QString& action)
{
    if (!(m_config.managedDevnet && m_devnet && m_status.devnetRunning && m_rpc)) {
        emit logMessage(
            QStringLiteral("error"),
            QStringLiteral("%1: the lab controls need the managed anvil running").arg(action));
        return false;
    }
    // Blocking RPC spins nested event loops, so a request can arrive while the lab is still
    // being set up (or reset): acting then would meet no demo token or no indexer.
    if (!m_status.labReady) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("%1: the lab is still being set up (demo token, indexer); "
                                       "try again once the Lab toolbar is enabled")
                            .arg(action));
        return false;
    }
    return true;
}

void EngineSession::checkInvariants(const QString& reason)
{
    if (!m_indexer) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("invariant check: nothing is being indexed"));
        return;
    }
    requestVerdict(reason.isEmpty() ? QStringLiteral("a check on request") : reason);
}

void EngineSession::setDemoTraffic(bool on, int transfersPerTick)
{
    m_status.demoTransfersPerTick = std::clamp(transfersPerTick, 1, 200);
    if (!m_demoTimer || !m_status.labReady) {
        emit logMessage(QStringLiteral("error"),
                        m_config.managedDevnet
                            ? QStringLiteral("demo traffic: the lab is still being set up; try "
                                             "again once the Lab toolbar is enabled")
                            : QStringLiteral("demo traffic needs the managed lab"));
        publish(true); // the toggle the user clicked goes back to what the engine does
        return;
    }
    if (on != m_status.demoTraffic)
        emit logMessage(QStringLiteral("info"),
                        on ? QStringLiteral("demo traffic on: %1 transfers a second")
                                 .arg(m_status.demoTransfersPerTick)
                           : QStringLiteral("demo traffic off"));
    m_status.demoTraffic = on;
    if (on && m_status.devnetRunning)
        m_demoTimer->start();
    else
        m_demoTimer->stop();
    publish();
}

void EngineSession::injectReorg(int depth, int txMode)
{
    const QString action = QStringLiteral("inject reorg depth %1 (%2)")
                               .arg(depth)
                               .arg(lab::ReorgInjector::modeName(lab::ReorgTxMode(txMode)));
    runLabAction(action, [&] {
        return lab::ReorgInjector::inject(*m_anvilRpc, depth, lab::ReorgTxMode(txMode)).describe();
    });
}

void EngineSession::runLabAction(const QString& action, const std::function<QString()>& act)
{
    if (!labAvailable(action))
        return;
    const auto busy = busyScope();
    try {
        emit logMessage(QStringLiteral("warning"), QStringLiteral("lab: %1").arg(act()));
        requestVerdict(action);
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("%1: %2").arg(action, QString::fromUtf8(e.what())));
    }
}

void EngineSession::rollbackBlocks(int blocks)
{
    const QString action = QStringLiteral("roll back %1 block(s)").arg(blocks);
    runLabAction(action, [&] {
        const quint64 head = lab::ReorgInjector::rollback(*m_anvilRpc, blocks);
        return QStringLiteral(
                   "rolled back %1 block(s); head is now %2 (the next blocks mined replace them)")
            .arg(blocks)
            .arg(head);
    });
}

void EngineSession::setProxyKnobs(int node, const QJsonObject& changes)
{
    lab::FaultProxy* proxy = m_proxies.value(node);
    if (!proxy) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("fault proxy: there is no lab node %1").arg(node + 1));
        return;
    }
    QString error;
    // The proxies serve on their own thread; the change is applied there.
    QMetaObject::invokeMethod(
        proxy, [&] { error = proxy->applyKnobs(changes); }, Qt::BlockingQueuedConnection);
    const QString desc = QString::fromUtf8(QJsonDocument(changes).toJson(QJsonDocument::Compact));
    if (!error.isEmpty()) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("fault proxy node %1: %2").arg(node + 1).arg(error));
        return;
    }
    emit logMessage(QStringLiteral("warning"),
                    QStringLiteral("lab: node %1 knobs %2").arg(node + 1).arg(desc));
    publishProxyKnobs();
    requestVerdict(QStringLiteral("fault proxy change on node %1").arg(node + 1));
}

void EngineSession::crashIndexer(const QString& point)
{
    if (!indexer::crashPointNames().contains(point)) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("unknown crash point \"%1\" (one of: %2)")
                            .arg(point, indexer::crashPointNames().join(QStringLiteral(", "))));
        return;
    }
    if (!m_indexer) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("crash the indexer: nothing is being indexed"));
        return;
    }
    indexer::armInProcessCrash(point);
    m_status.crashArmed = point;
    emit logMessage(
        QStringLiteral("warning"),
        QStringLiteral("lab: the indexer will crash at %1 the next time it gets there").arg(point));
    publish();
    if (point == QLatin1String("mid-rollback")) {
        // A rollback only happens on a reorg: make one.
        injectReorg(3, int(lab::ReorgTxMode::Keep));
    } else if (m_demo && !m_status.demoTraffic) {
        // before/after-commit need something to commit: one more transfer.
        try {
            m_demo->spray(1, m_demoOffset++, 50);
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("demo transfer: %1").arg(QString::fromUtf8(e.what())));
        }
    }
}

QList<chain::Address> EngineSession::indexedContracts() const
{
    // What the user configured, plus the lab's demo token.
    QList<chain::Address> out;
    for (const QString& c : m_config.contracts)
        out.append(chain::Address::fromHex(c, QStringLiteral("contract")));
    if (m_demo)
        out.append(m_demo->address());
    return out;
}

void EngineSession::useEnvironment(const QString& environmentId,
                                   const QList<chain::Address>& contracts)
{
    m_ic.environmentId = environmentId;
    m_ic.contracts = contracts;
    m_status.environmentId = environmentId;
    m_status.contracts.clear();
    for (const auto& c : contracts)
        m_status.contracts << c.toHex();
}

void EngineSession::deployDemoToken()
{
    const auto sender = lab::DemoToken::defaultSender(*m_anvilRpc);
    m_demo = std::make_unique<lab::DemoToken>(
        lab::DemoToken::deploy(*m_anvilRpc, sender, QStringLiteral("Forkscope Demo"),
                               QStringLiteral("FSD"), chain::U256("1000000000000000000000000")));
    m_demoOffset = 0;
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("demo token deployed at %1").arg(m_demo->address().toHex()));
}

void EngineSession::refreshEnvironments()
{
    QList<EngineStatus::EnvironmentEntry> list;
    for (const indexer::Environment& e : indexer::EnvironmentRegistry(*m_readDb).list())
        list.append({e.id, e.chainId, e.createdAt, e.archivedAt});
    m_status.environments = list;
}

void EngineSession::resetLab()
{
    const QString action = QStringLiteral("lab reset");
    if (!labAvailable(action) || !m_indexer)
        return;
    const auto busy = busyScope();
    m_status.labReady = false; // no lab action, and no second reset, until this one is done
    publish(true);
    // Stop indexing first: nothing may write into the environment being archived.
    m_indexTimer->stop();
    if (m_demoTimer)
        m_demoTimer->stop();
    m_outbox.reset();
    m_indexer.reset();
    try {
        // Straight to anvil (not through a lab proxy, whose knobs may be failing requests).
        const lab::LabResetResult r = lab::LabReset::reset(*m_db, *m_anvilRpc, m_devnet->url(),
                                                           QString(), m_status.environmentId);
        emit logMessage(
            QStringLiteral("warning"),
            QStringLiteral(
                "lab reset: environment %1 archived (read-only; %2 blocks, %3 transfers, %4 "
                "balances, %5 reorgs kept); anvil reset; new environment %6")
                .arg(r.archivedEnvironmentId)
                .arg(r.blocksKept)
                .arg(r.transfersKept)
                .arg(r.balancesKept)
                .arg(r.reorgsKept)
                .arg(r.newEnvironmentId));
        deployDemoToken();
        useEnvironment(r.newEnvironmentId, indexedContracts());
        m_status.checkpoint.reset();
        m_status.checkpointHash.clear();
        m_status.recentReorgs.clear();
        m_status.verifiedAt.clear();
        m_status.outboxPending = m_status.outboxDelivered = m_status.outboxFailed = 0;
        createIndexer();
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("lab reset failed: %1").arg(QString::fromUtf8(e.what())));
        // Whatever happened, index again (the old environment if it was not archived: the
        // indexer then says precisely what state the chain is in).
        try {
            createIndexer();
        } catch (...) {
        }
    }
    refreshEnvironments();
    m_status.labReady = m_indexer != nullptr;
    requestVerdict(action);
    if (m_demoTimer && m_status.demoTraffic)
        m_demoTimer->start();
    // The confirmation promised "index the fresh chain", and the verdict waits for the new
    // environment to catch up: a reset resumes indexing even if it had been paused.
    if (m_status.indexingPaused) {
        m_status.indexingPaused = false;
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("indexing resumed by the lab reset"));
    }
    m_indexTimer->start(0);
}

void EngineSession::requestReport(quint64 ticket, const QString& environmentId, bool verify)
{
    if (!m_readDb) {
        emit reportFailed(ticket, QStringLiteral("the engine has no database open"));
        return;
    }
    const auto busy = busyScope();
    try {
        const QString env = environmentId.isEmpty() ? m_status.environmentId : environmentId;
        emit reportAvailable(ticket, report::CheckpointReport::build(
                                         *m_readDb, env, verify && m_eth ? m_eth.get() : nullptr));
    } catch (const std::exception& e) {
        emit reportFailed(ticket, QString::fromUtf8(e.what()));
    }
}

void EngineSession::startLabProxies(const QUrl& upstream)
{
    m_proxyThread = new QThread(this);
    m_proxyThread->setObjectName(QStringLiteral("forkscope-lab-proxies"));
    m_proxyThread->start();
    for (int i = 0; i < m_config.labNodes; ++i) {
        auto* proxy = new lab::FaultProxy(upstream);
        proxy->moveToThread(m_proxyThread);
        connect(m_proxyThread, &QThread::finished, proxy, &QObject::deleteLater);
        QString error;
        QMetaObject::invokeMethod(
            proxy,
            [proxy, &error] {
                try {
                    proxy->listen();
                } catch (const std::exception& e) {
                    error = QString::fromUtf8(e.what());
                }
            },
            Qt::BlockingQueuedConnection);
        if (!error.isEmpty())
            throw lab::DevnetError(QStringLiteral("lab node %1: %2").arg(i + 1).arg(error));
        m_proxies.append(proxy);
        m_status.labNodes << proxy->url().toString();
    }
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("lab nodes (fault proxies in front of anvil): %1")
                        .arg(m_status.labNodes.join(QStringLiteral(", "))));
    publishProxyKnobs();
}

void EngineSession::publishProxyKnobs()
{
    QList<QJsonObject> knobs;
    for (const auto& p : m_proxies) {
        QJsonObject k;
        if (p)
            QMetaObject::invokeMethod(
                p, [&k, p] { k = p->knobs(); }, Qt::BlockingQueuedConnection);
        knobs << k;
    }
    m_status.proxyKnobs = knobs;
    publish();
}

void EngineSession::updateSafeHeight()
{
    // The same rule as `forkscope index`.
    const auto safe =
        outbox::safeHeight(m_status.headBlock, m_config.confirmations, m_status.health.readyHeight);
    m_status.safeHeight = safe;
    if (m_outbox && safe)
        m_outbox->setSafeHeight(*safe);
}

void EngineSession::verifyStoredData()
{
    if (!m_indexer || !m_db || !m_eth) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("verify needs a running indexer and database"));
        return;
    }
    const auto busy = busyScope();
    try {
        const audit::AuditTarget target = audit::AuditTarget::load(*m_db, m_status.environmentId);
        audit::AuditRange range;
        if (const QString why = target.resolveRange(std::nullopt, std::nullopt, &range);
            !why.isEmpty()) {
            emit logMessage(QStringLiteral("info"), QStringLiteral("verify: %1").arg(why));
            return;
        }
        audit::StoredDataAuditor auditor(*m_db, *m_eth);
        const audit::AuditResult r = auditor.audit(target, range);
        if (r.clean()) {
            emit logMessage(QStringLiteral("ok"),
                            QStringLiteral("verify: blocks %1-%2 hold exactly the node's logs "
                                           "(%3 blocks, %4 logs, %5 bloom false positives)")
                                .arg(r.from)
                                .arg(r.to)
                                .arg(r.blocksChecked)
                                .arg(r.storedLogs)
                                .arg(r.bloomFalsePositives));
        } else if (const auto first = r.firstHole()) {
            // A hole in committed data: loud and persistent until repaired.
            const audit::AuditHole& hole = r.holes.first();
            indexer::CompletenessAlerts(*m_db, m_status.environmentId, m_indexer->chainId())
                .record(m_status.endpoint, *first, r.holes.last().block,
                        QStringLiteral("stored data has %1 hole(s), the first %2 (found by "
                                       "Verify stored data)")
                            .arg(r.holeCount)
                            .arg(hole.describe()),
                        QStringLiteral("audit"));
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("verify: %1 hole(s) in blocks %2-%3, the first %4")
                                .arg(r.holeCount)
                                .arg(*first)
                                .arg(r.holes.last().block)
                                .arg(hole.describe()));
        } else {
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("verify: the chain moved on at block %1 (a reorg "
                                           "the indexer has not seen yet); not a hole")
                                .arg(*r.reorgedAt));
        }
        refreshDbSummary();
        publish();
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("verify failed: %1").arg(QString::fromUtf8(e.what())));
    }
}

void EngineSession::setVerifyReceipts(bool on)
{
    m_ic.completeness.receipts = on;
    m_status.verifyReceipts = on;
    if (m_indexer) {
        // The fetch policy is fixed per indexer: a new one, from the committed checkpoint.
        const auto busy = busyScope();
        m_indexer.reset();
        createIndexer();
    }
    emit logMessage(QStringLiteral("info"),
                    on ? QStringLiteral("receipts proof on: every block with logs of ours is "
                                        "proven against its receipts root")
                       : QStringLiteral("receipts proof off: the bloom check and the recount "
                                        "remain"));
    publish();
}

void EngineSession::repair(quint64 fromBlock, const QString& node)
{
    if (!m_indexer || !m_db) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("repair needs a running indexer and database"));
        return;
    }
    const auto busy = busyScope();
    const QUrl url(node);
    try {
        // The indexer stops first: the rollback must not race its commits.
        if (m_indexTimer)
            m_indexTimer->stop();
        m_indexer.reset();
        // A client for the chosen node; the old one stays while the lab's hands use it.
        auto* client = new rpc::JsonRpcClient(url, this);
        client->setTimeout(m_config.rpcTimeout);
        auto eth = std::make_unique<rpc::EthClient>(*client);
        indexer::IndexerConfig ic = m_ic;
        ic.rpcUrl = url;
        audit::EnvironmentRepair repair(*m_db, *eth, ic);
        const audit::RepairPlan plan = repair.plan(m_status.environmentId, fromBlock);
        const audit::RepairRollback done = repair.rollBack(plan);
        if (plan.rollbackNeeded)
            emit logMessage(
                QStringLiteral("warning"),
                QStringLiteral("repair: rolled back to block %1 in one transaction (reorg #%2, "
                               "%3 rows removed, %4 completeness alert(s) resolved); indexing "
                               "again from block %5 reading %6")
                    .arg(done.rollback.forkBlock)
                    .arg(done.rollback.reorgId)
                    .arg(done.rollback.rowsRemoved)
                    .arg(done.alertsResolved)
                    .arg(plan.from)
                    .arg(node));
        else
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("repair: nothing stored from block %1 on, nothing to "
                                           "roll back (%2 completeness alert(s) resolved); "
                                           "fetching block %1 again reading %3")
                                .arg(plan.from)
                                .arg(done.alertsResolved)
                                .arg(node));
        // The indexer reads the chosen node from now on.
        if (m_anvilRpc != m_rpc)
            delete m_rpc;
        m_rpc = client;
        m_eth = std::move(eth);
        m_ic = ic;
        m_status.endpoint = node;
        m_status.suspectedTruncations = 0;
        createIndexer();
        refreshDbSummary();
        publish();
        if (!m_stopRequested && !m_status.indexingPaused && m_indexTimer)
            m_indexTimer->start(0);
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"), QStringLiteral("repair from block %1 refused: %2")
                                                     .arg(fromBlock)
                                                     .arg(QString::fromUtf8(e.what())));
        if (!m_indexer) {
            createIndexer();
            if (m_indexTimer)
                m_indexTimer->start(0);
        }
        publish();
    }
}

void EngineSession::refreshDbSummary()
{
    // Read on the engine's own connection; the window only ever gets the values.
    m_sinceDbSummary.start();
    refreshEnvironments();
    // The node's chain id as the engine read it: a fresh indexer knows its own only once it
    // has prepared (0 before), and the summary must not go blank meanwhile.
    const std::uint64_t chainId =
        m_indexer->chainId() != 0 ? m_indexer->chainId() : m_status.chainId.value_or(0);
    const QVariantList scope{m_status.environmentId, qint64(chainId)};
    QSqlQuery r = m_db->run(
        QStringLiteral("SELECT id, detected_at, depth, reason, fork_block_number, rows_removed "
                       "FROM reorg_events WHERE environment_id = ? AND chain_id = ? "
                       "ORDER BY id DESC LIMIT 200"),
        scope);
    QList<ReorgMark> marks;
    while (r.next())
        marks.prepend({r.value(0).toLongLong(),
                       QDateTime::fromString(r.value(1).toString(), Qt::ISODateWithMs),
                       r.value(2).toLongLong(), r.value(3).toString(), r.value(4).toLongLong(),
                       r.value(5).toLongLong()});
    m_status.recentReorgs = marks;
    m_status.openAlerts =
        indexer::CompletenessAlerts(*m_db, m_status.environmentId, chainId).open();
    if (!m_status.openAlerts.isEmpty() && !m_status.indexingPaused)
        m_status.indexerState = QStringLiteral("data incomplete"); // never green over a gap
    if (!m_status.openAlerts.isEmpty() && m_monitor) {
        // The node that dropped logs stays marked in node health, across restarts too.
        const auto& last = m_status.openAlerts.last();
        m_monitor->reportDroppedLogs(last.node, qint64(m_status.openAlerts.size()), last.fromBlock);
    }
    QSqlQuery cp =
        m_db->run(QStringLiteral("SELECT block_hash, policy_version, generation, verified_at FROM "
                                 "indexer_checkpoints WHERE environment_id = ? AND chain_id = ?"),
                  scope);
    if (cp.next()) {
        m_status.checkpointHash = cp.value(0).toString();
        m_status.policyVersion = cp.value(1).toString();
        m_status.generation = cp.value(2).toInt();
        m_status.verifiedAt = cp.value(3).toString();
    }
    const outbox::OutboxCounts outboxRows =
        outbox::countRows(*m_db, m_status.environmentId, chainId);
    m_status.outboxPending = outboxRows.pending;
    m_status.outboxDelivered = outboxRows.delivered;
    m_status.outboxFailed = outboxRows.failed;
    if (m_outboxRateBase < 0 || !m_outboxRateClock.isValid()) {
        m_outboxRateClock.start();
        m_outboxRateBase = m_status.outboxDelivered;
    } else if (m_outboxRateClock.elapsed() >= 1000) {
        m_status.outboxDeliveredPerSecond = double(m_status.outboxDelivered - m_outboxRateBase) *
                                            1000.0 / double(m_outboxRateClock.restart());
        m_outboxRateBase = m_status.outboxDelivered;
    }
    // The oldest row still waiting, aged by its block's time (the outbox has no enqueue
    // time of its own; the block time is when the event happened on chain).
    QSqlQuery age = m_db->run(
        QStringLiteral("SELECT b.block_timestamp FROM outbox o JOIN blocks b ON "
                       "b.environment_id = o.environment_id AND b.chain_id = o.chain_id AND "
                       "b.block_number = o.block_number WHERE o.environment_id = ? AND "
                       "o.chain_id = ? AND o.delivered_at IS NULL AND o.failed_at IS NULL "
                       "ORDER BY o.block_number LIMIT 1"),
        scope);
    m_status.outboxOldestPendingAgeSecs.reset();
    if (age.next())
        m_status.outboxOldestPendingAgeSecs =
            std::max(0.0, double(QDateTime::currentSecsSinceEpoch() - age.value(0).toLongLong()));
}

void EngineSession::setIndexingPaused(bool paused)
{
    if (!m_indexTimer || m_status.indexingPaused == paused)
        return;
    m_status.indexingPaused = paused;
    if (paused) {
        m_indexTimer->stop();
        m_status.indexerState = QStringLiteral("paused");
    } else {
        m_indexTimer->start(0);
    }
    emit logMessage(QStringLiteral("info"), paused ? QStringLiteral("indexing paused")
                                                   : QStringLiteral("indexing resumed"));
    publish();
}

void EngineSession::requestReorgDiff(qint64 id)
{
    if (!m_readDb || m_status.environmentId.isEmpty())
        return;
    ReorgDiff diff;
    try {
        QSqlQuery r = m_readDb->run(
            QStringLiteral("SELECT id, detected_at, depth, reason, fork_block_number, rows_removed "
                           "FROM reorg_events WHERE id = ? AND environment_id = ?"),
            {id, m_status.environmentId});
        if (!r.next())
            return;
        diff.reorg = {r.value(0).toLongLong(),
                      QDateTime::fromString(r.value(1).toString(), Qt::ISODateWithMs),
                      r.value(2).toLongLong(),
                      r.value(3).toString(),
                      r.value(4).toLongLong(),
                      r.value(5).toLongLong()};
        QSqlQuery q = m_readDb->run(
            QStringLiteral("SELECT kind, block_number, log_index, contract, holder, from_addr, "
                           "to_addr, value, before_value, after_value, event_key FROM "
                           "reorg_diff_items WHERE reorg_id = ? AND environment_id = ? "
                           "ORDER BY kind, block_number, log_index LIMIT 10000"),
            {id, m_status.environmentId});
        while (q.next()) {
            ReorgDiff::Item it;
            it.kind = q.value(0).toString();
            it.blockNumber = q.value(1).isNull() ? -1 : q.value(1).toLongLong();
            it.logIndex = q.value(2).isNull() ? -1 : q.value(2).toLongLong();
            it.contract = q.value(3).toString();
            it.holder = q.value(4).toString();
            it.from = q.value(5).toString();
            it.to = q.value(6).toString();
            it.value =
                it.kind.startsWith(QLatin1String("outbox")) ? QString() : q.value(7).toString();
            it.before = q.value(8).toString();
            it.after = q.value(9).toString();
            it.eventKey = q.value(10).toString();
            diff.items.append(it);
        }
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("reorg diff: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    emit reorgDiffAvailable(diff);
}

void EngineSession::demoTick()
{
    if (!m_demo || m_stopRequested)
        return;
    const auto busy = busyScope();
    try {
        const int n = std::max(1, m_status.demoTransfersPerTick);
        m_demo->spray(n, m_demoOffset, 50);
        m_demoOffset += quint64(n);
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("demo traffic: %1").arg(QString::fromUtf8(e.what())));
    }
}

void EngineSession::stop()
{
    m_stopRequested = true;
    if (m_demoTimer)
        m_demoTimer->stop();
    if (m_indexTimer)
        m_indexTimer->stop();
    if (m_pollTimer)
        m_pollTimer->stop();
    if (m_busy > 0)
        return; // called from inside a step's nested event loop: finish when it unwinds
    finishStop();
}

void EngineSession::finishStop()
{
    if (m_healthThread) {
        if (m_monitor)
            QMetaObject::invokeMethod(m_monitor, &health::NodeHealthMonitor::stop,
                                      Qt::BlockingQueuedConnection);
        m_healthThread->quit();
        m_healthThread->wait();
        delete m_healthThread;
        m_healthThread = nullptr;
    }
    m_outbox.reset(); // joins the dispatcher thread
    if (m_proxyThread) {
        m_proxyThread->quit();
        m_proxyThread->wait();
        delete m_proxyThread;
        m_proxyThread = nullptr;
        m_proxies.clear();
    }
    m_indexer.reset();
    m_demo.reset();
    m_eth.reset();
    if (m_pollTimer)
        m_pollTimer->stop();
    if (m_anvilRpc != m_rpc)
        delete m_anvilRpc;
    m_anvilRpc = nullptr;
    delete m_rpc;
    m_rpc = nullptr;
    if (m_devnet) {
        archiveManagedEnvironment();
        m_devnet->stop();
        m_devnet.reset();
    }
    m_readDb.reset();
    m_db.reset();
    if (m_status.connection != EngineStatus::Connection::Stopped) {
        m_status.connection = EngineStatus::Connection::Stopped;
        publish();
    }
}

void EngineSession::archiveManagedEnvironment()
{
    // The managed anvil's chain lives only as long as this session (its --state file is a
    // temporary one): once the anvil stops for good, nothing can ever index into this
    // environment again. It is archived, every row kept, rather than listed as "live" with
    // no chain behind it. Runs after the indexer and the dispatcher are gone.
    const QString env = m_status.environmentId;
    if (!m_db || env.isEmpty())
        return;
    try {
        store::WriteTransaction tx(*m_db);
        indexer::EnvironmentRegistry registry(*m_db);
        const auto found = registry.find(env);
        if (!found || !found->archivedAt.isEmpty())
            return;
        registry.archive(env, store::nowUtc());
        tx.commit();
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("environment %1 archived: its managed anvil stopped with "
                                       "the engine (every row is kept; View > Environments "
                                       "opens it)")
                            .arg(env));
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("could not archive environment %1 as its managed anvil "
                                       "stopped: %2")
                            .arg(env, QString::fromUtf8(e.what())));
    }
}

} // namespace forkscope::engine
