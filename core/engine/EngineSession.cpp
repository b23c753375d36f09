#include "EngineSession.h"
#include "health/NodeHealthMonitor.h"
#include "indexer/Indexer.h"
#include "indexer/IndexerErrors.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "rpc/EthClient.h"
#include "store/Database.h"

#include <QDir>
#include <QScopeGuard>
#include <QSqlQuery>
#include <QThread>
#include <QFileInfo>
#include <QTimer>

namespace forkscope::engine {

EngineSession::EngineSession(EngineConfig config, QObject* parent)
    : QObject(parent), m_config(std::move(config))
{
    m_status.managedDevnet = m_config.managedDevnet;
    m_status.dbPath = m_config.dbPath;
    m_status.endpoint = m_config.managedDevnet ? QString() : m_config.rpcUrl.toString();
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
    ++m_busy; // starting anvil and deploying the demo token block in nested event loops
    const auto unbusy = qScopeGuard([this] {
        if (--m_busy == 0 && m_stopRequested)
            finishStop();
    });
    try {
        if (!m_config.dbPath.isEmpty()) {
            QDir().mkpath(QFileInfo(m_config.dbPath).absolutePath());
            m_db = store::Database::open(m_config.dbPath);
            m_status.schemaVersion = m_db->schemaVersion();
            emit logMessage(QStringLiteral("info"),
                            QStringLiteral("database %1 (schema v%2)")
                                .arg(m_config.dbPath)
                                .arg(m_db->schemaVersion()));
        }
        QUrl url = m_config.rpcUrl;
        if (m_config.managedDevnet) {
            m_devnet = std::make_unique<lab::Devnet>();
            connect(m_devnet.get(), &lab::Devnet::exitedUnexpectedly, this,
                    [this](int code, const QString& tail) {
                        m_status.connection = EngineStatus::Connection::Failed;
                        m_status.message =
                            QStringLiteral("managed anvil exited (code %1): %2").arg(code).arg(tail);
                        emit logMessage(QStringLiteral("error"), m_status.message);
                        publish();
                    });
            m_devnet->start();
            url = m_devnet->url();
            emit logMessage(QStringLiteral("info"),
                            QStringLiteral("managed anvil started at %1 (log %2)")
                                .arg(url.toString(), m_devnet->logPath()));
        }
        m_status.endpoint = url.toString();
        m_rpc = new rpc::JsonRpcClient(url, this);
        m_rpc->setTimeout(m_config.rpcTimeout);
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

void EngineSession::poll()
{
    if (!m_rpc || m_pollInFlight)
        return;
    m_pollInFlight = true;
    rpc::RpcCall* call = m_rpc->batch({{QStringLiteral("eth_chainId"), {}},
                                       {QStringLiteral("eth_blockNumber"), {}}});
    connect(call, &rpc::RpcCall::finished, this, [this, call] {
        call->deleteLater();
        m_pollInFlight = false;
        const auto before = m_status.connection;
        try {
            const auto& r = call->responses();
            m_status.chainId = rpc::EthClient::parseQuantity(r.at(0), QStringLiteral("eth_chainId"));
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
                const QString level = to == int(health::NodeState::CaughtUp) ? QStringLiteral("info")
                                                                             : QStringLiteral("warning");
                if (from == to)
                    emit logMessage(level, QStringLiteral("node %1: %2").arg(node, health::nodeStateName(health::NodeState(to))));
                else
                    emit logMessage(level, QStringLiteral("node %1: %2 -> %3")
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
        ic.environmentId = m_config.managedDevnet
                               ? QStringLiteral("lab-") + QDateTime::currentDateTimeUtc().toString(
                                                              QStringLiteral("yyyyMMdd-HHmmss-zzz"))
                               : QStringLiteral("default");
    for (const QString& c : m_config.contracts)
        ic.contracts.append(chain::Address::fromHex(c, QStringLiteral("contract")));
    if (m_config.managedDevnet) {
        // Something to watch with nothing to configure: a demo token and live transfers.
        const auto sender = lab::DemoToken::defaultSender(*m_rpc);
        m_demo = std::make_unique<lab::DemoToken>(lab::DemoToken::deploy(
            *m_rpc, sender, QStringLiteral("Forkscope Demo"), QStringLiteral("FSD"),
            chain::U256("1000000000000000000000000")));
        ic.contracts.append(m_demo->address());
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("demo token deployed at %1").arg(m_demo->address().toHex()));
        m_demoTimer = new QTimer(this);
        m_demoTimer->setInterval(m_config.demoInterval);
        connect(m_demoTimer, &QTimer::timeout, this, &EngineSession::demoTick);
        if (m_config.demoTraffic)
            m_demoTimer->start();
    }
    if (ic.contracts.isEmpty()) {
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("no contracts configured: indexing is off"));
        return;
    }
    ic.fetchWorkers = 2;
    m_status.environmentId = ic.environmentId;
    for (const auto& c : ic.contracts)
        m_status.contracts << c.toHex();
    m_indexer = std::make_unique<indexer::Indexer>(ic, *m_db, *m_eth);
    m_indexer->onReorg = [this](const indexer::RollbackResult& r, const QString& reason) {
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("reorg (%1): checkpoint %2 -> fork %3, depth %4, %5 rows removed")
                            .arg(reason)
                            .arg(r.oldCheckpoint)
                            .arg(r.forkBlock)
                            .arg(r.depth)
                            .arg(r.rowsRemoved));
    };
    m_indexTimer = new QTimer(this);
    m_indexTimer->setSingleShot(true);
    connect(m_indexTimer, &QTimer::timeout, this, &EngineSession::indexStep);
    m_rateClock.start();
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("indexing environment %1").arg(ic.environmentId));
    m_indexTimer->start(0);
}

void EngineSession::indexStep()
{
    if (!m_indexer || m_stopRequested)
        return;
    int next = 500;
    ++m_busy;
    const auto unbusy = qScopeGuard([this] {
        if (--m_busy == 0 && m_stopRequested)
            finishStop();
    });
    try {
        const indexer::IndexerStatus& s = m_indexer->step();
        m_status.indexerState = m_status.indexingPaused ? QStringLiteral("paused")
                                                        : indexer::IndexerStatus::stateName(s.state);
        m_status.checkpoint = s.checkpoint;
        if (s.head)
            m_status.headBlock = s.head;
        m_status.transfersCommitted = s.transfersCommitted;
        m_status.reorgs = s.reorgs;
        if (m_rateClock.elapsed() >= 1000) {
            m_status.eventsPerSecond =
                double(s.logsCommitted - m_rateBase) * 1000.0 / double(m_rateClock.restart());
            m_rateBase = s.logsCommitted;
        }
        if (s.state == indexer::IndexerStatus::State::Reorged || !m_sinceDbSummary.isValid() ||
            m_sinceDbSummary.elapsed() >= 1000)
            refreshDbSummary();
        if (s.state == indexer::IndexerStatus::State::Syncing ||
            s.state == indexer::IndexerStatus::State::Reorged)
            next = 0;
        else if (s.retryDelayMs > 0)
            next = s.retryDelayMs;
        publish(false);
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

void EngineSession::refreshDbSummary()
{
    // Read on the engine's own connection; the window only ever gets the values.
    m_sinceDbSummary.start();
    const QVariantList scope{m_status.environmentId, qint64(m_indexer->chainId())};
    QSqlQuery r = m_db->run(QStringLiteral("SELECT id, detected_at, depth, reason, fork_block_number, rows_removed "
                                           "FROM reorg_events WHERE environment_id = ? AND chain_id = ? "
                                           "ORDER BY id DESC LIMIT 200"),
                            scope);
    QList<ReorgMark> marks;
    while (r.next())
        marks.prepend({r.value(0).toLongLong(), QDateTime::fromString(r.value(1).toString(), Qt::ISODateWithMs),
                       r.value(2).toLongLong(), r.value(3).toString(), r.value(4).toLongLong(),
                       r.value(5).toLongLong()});
    m_status.recentReorgs = marks;
    QSqlQuery cp = m_db->run(QStringLiteral("SELECT block_hash, policy_version, generation, verified_at FROM "
                                            "indexer_checkpoints WHERE environment_id = ? AND chain_id = ?"),
                             scope);
    if (cp.next()) {
        m_status.checkpointHash = cp.value(0).toString();
        m_status.policyVersion = cp.value(1).toString();
        m_status.generation = cp.value(2).toInt();
        m_status.verifiedAt = cp.value(3).toString();
    }
    QSqlQuery o = m_db->run(QStringLiteral("SELECT count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS NULL), "
                                           "count(*) FILTER (WHERE delivered_at IS NOT NULL) FROM outbox "
                                           "WHERE environment_id = ? AND chain_id = ?"),
                            scope);
    if (o.next()) {
        m_status.outboxPending = o.value(0).toLongLong();
        m_status.outboxDelivered = o.value(1).toLongLong();
    }
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
    emit logMessage(QStringLiteral("info"), paused ? QStringLiteral("indexing paused") : QStringLiteral("indexing resumed"));
    publish();
}

void EngineSession::requestReorgDiff(qint64 id)
{
    if (!m_db || m_status.environmentId.isEmpty())
        return;
    ReorgDiff diff;
    try {
        QSqlQuery r = m_db->run(QStringLiteral("SELECT id, detected_at, depth, reason, fork_block_number, rows_removed "
                                               "FROM reorg_events WHERE id = ? AND environment_id = ?"),
                                {id, m_status.environmentId});
        if (!r.next())
            return;
        diff.reorg = {r.value(0).toLongLong(), QDateTime::fromString(r.value(1).toString(), Qt::ISODateWithMs),
                      r.value(2).toLongLong(), r.value(3).toString(), r.value(4).toLongLong(), r.value(5).toLongLong()};
        QSqlQuery q = m_db->run(QStringLiteral("SELECT kind, block_number, log_index, contract, holder, from_addr, "
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
            it.value = it.kind.startsWith(QLatin1String("outbox")) ? QString() : q.value(7).toString();
            it.before = q.value(8).toString();
            it.after = q.value(9).toString();
            it.eventKey = q.value(10).toString();
            diff.items.append(it);
        }
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"), QStringLiteral("reorg diff: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    emit reorgDiffAvailable(diff);
}

void EngineSession::demoTick()
{
    if (!m_demo || m_stopRequested)
        return;
    ++m_busy;
    const auto unbusy = qScopeGuard([this] {
        if (--m_busy == 0 && m_stopRequested)
            finishStop();
    });
    try {
        m_demo->spray(10, m_demoOffset, 50);
        m_demoOffset += 10;
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("warning"), QStringLiteral("demo traffic: %1").arg(QString::fromUtf8(e.what())));
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
            QMetaObject::invokeMethod(m_monitor, &health::NodeHealthMonitor::stop, Qt::BlockingQueuedConnection);
        m_healthThread->quit();
        m_healthThread->wait();
        delete m_healthThread;
        m_healthThread = nullptr;
    }
    m_indexer.reset();
    m_demo.reset();
    m_eth.reset();
    if (m_pollTimer)
        m_pollTimer->stop();
    delete m_rpc;
    m_rpc = nullptr;
    if (m_devnet) {
        m_devnet->stop();
        m_devnet.reset();
    }
    m_db.reset();
    if (m_status.connection != EngineStatus::Connection::Stopped) {
        m_status.connection = EngineStatus::Connection::Stopped;
        publish();
    }
}

} // namespace forkscope::engine
