#include "IndexingService.h"
#include "audit/EnvironmentRepair.h"
#include "audit/StoredDataAuditor.h"
#include "concurrency/WorkerThread.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/CrashPoints.h"
#include "indexer/Indexer.h"
#include "indexer/IndexerErrors.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/OutboxThread.h"
#include "outbox/SafeHeight.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "wire/SuspectedTruncationError.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>

namespace forkscope::engine {

// Everything below is created, used and destroyed on the loop thread only.
struct IndexingService::Loop
{
    IndexingOptions options;
    std::unique_ptr<store::Database> db;
    std::unique_ptr<rpc::JsonRpcClient> rpc;
    std::unique_ptr<rpc::EthClient> eth;
    std::unique_ptr<indexer::Indexer> indexer;
    std::unique_ptr<outbox::OutboxThread> outbox;
    concurrency::WorkerThread healthThread{QStringLiteral("forkscope-health")};
    QPointer<health::NodeHealthMonitor> monitor;
    IndexingSnapshot snap;
    QElapsedTimer sincePublish;
    QElapsedTimer rateClock;
    qint64 rateBase = 0;
    qint64 blockRateBase = 0;
    qint64 lastBlocks = -1;
    std::optional<QDeadlineTimer> restartAt; // a simulated crash: restart then
    QString crashedAt;
};

IndexingService::IndexingService(IndexingOptions options, QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_thread(QStringLiteral("forkscope-index"))
{
    qRegisterMetaType<IndexingSnapshot>();
    qRegisterMetaType<health::HealthSnapshot>();
    qRegisterMetaType<indexer::RollbackResult>();
    qRegisterMetaType<QList<quint64>>();
    m_options.indexer.stopToken = m_thread.stopToken();
    m_snapshot.environmentId = m_options.indexer.environmentId;
    m_snapshot.endpoint = m_options.indexer.rpcUrl.toString();
    m_snapshot.outboxSink = !m_options.webhook.isEmpty()
                                ? m_options.webhook.toString(QUrl::RemoveUserInfo)
                                : m_options.outboxFile;
}

IndexingService::~IndexingService()
{
    requestStop();
    wait();
}

bool IndexingService::isRunning() const
{
    return m_thread.isRunning();
}

void IndexingService::requestStop()
{
    m_thread.requestStop();
}

bool IndexingService::wait(std::chrono::milliseconds timeout)
{
    return m_thread.wait(timeout);
}

IndexingSnapshot IndexingService::snapshot() const
{
    QMutexLocker lock(&m_mutex);
    return m_snapshot;
}

health::HealthSnapshot IndexingService::health() const
{
    QMutexLocker lock(&m_mutex);
    return m_health;
}

void IndexingService::publish(bool force)
{
    Loop& l = *m_loop;
    // At most ~10 snapshots a second, however fast the indexer commits.
    if (!force && l.sincePublish.isValid() && l.sincePublish.elapsed() < 100)
        return;
    l.sincePublish.start();
    const indexer::IndexerStatus& s = l.snap.status;
    if (l.rateClock.isValid() && l.rateClock.elapsed() >= 1000) {
        const double ms = double(l.rateClock.restart());
        l.snap.eventsPerSecond = std::max(0.0, double(s.logsCommitted - l.rateBase) * 1000.0 / ms);
        l.snap.blocksPerSecond =
            std::max(0.0, double(s.blocksCommitted - l.blockRateBase) * 1000.0 / ms);
        l.rateBase = s.logsCommitted;
        l.blockRateBase = s.blocksCommitted;
    }
    if (l.outbox) {
        l.snap.outboxDelivered = l.outbox->delivered();
        l.snap.outboxRefused = l.outbox->failed();
    }
    {
        QMutexLocker lock(&m_mutex);
        m_snapshot = l.snap;
    }
    emit snapshotAvailable(l.snap);
}

void IndexingService::createIndexer()
{
    Loop& l = *m_loop;
    l.indexer = std::make_unique<indexer::Indexer>(l.options.indexer, *l.db, *l.eth);
    l.indexer->onReorg = [this](const indexer::RollbackResult& r, const QString& reason) {
        emit reorged(r, reason);
    };
    l.indexer->onResentBatch = [this](std::uint64_t from, std::uint64_t to,
                                      const indexer::Indexer::Acceptance& again) {
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("lost acknowledgement: batch %1-%2 was committed but its "
                                       "answer was dropped; sent again, the receiver refused it "
                                       "(%3) and named block %4 to go on from: nothing applied "
                                       "twice")
                            .arg(from)
                            .arg(to)
                            .arg(again.reason)
                            .arg(again.expectedFromBlock));
    };
    l.indexer->onAbsence = [this](const QList<std::uint64_t>& blocks, bool contradicted) {
        QList<quint64> out;
        for (auto b : blocks)
            out << quint64(b);
        emit absence(out, contradicted);
    };
    l.snap.environmentId = l.options.indexer.environmentId;
    l.snap.contracts.clear();
    for (const auto& c : l.options.indexer.contracts)
        l.snap.contracts << c.toHex();
    l.snap.endpoint = l.options.indexer.rpcUrl.toString();
    l.snap.verifyReceipts = l.options.indexer.completeness.receipts;
    l.snap.fatal.clear();
    l.snap.fatalIsTruncation = false;
    l.snap.deepReorgCheckpoint = 0;
    l.snap.deepReorgLimit = 0;
    l.snap.maxReorgDepth = l.options.indexer.maxReorgDepth;
    l.snap.status = {};
    l.rateBase = 0;
    l.blockRateBase = 0;
    l.rateClock.start();
    if (l.monitor)
        l.monitor->setEnvironment(l.options.indexer.environmentId);
}

void IndexingService::start()
{
    m_loop = std::make_unique<Loop>();
    m_loop->options = m_options;
    m_thread.start(
        [this] {
            Loop& l = *m_loop;
            l.snap.running = true;
            // The database first (the indexer creates and migrates it; health reads the
            // stored hashes from it), node health even when it cannot be opened.
            QString openError;
            if (!l.options.indexer.dbPath.isEmpty()) {
                try {
                    l.db = store::Database::open(l.options.indexer.dbPath,
                                                 store::Database::Options::bulkWriter());
                } catch (const std::exception& e) {
                    openError = QString::fromUtf8(e.what());
                }
            }
            // Node health polls on its own thread (asynchronous RPC, its own timer): a step
            // blocked on the node must not delay it.
            health::NodeHealthMonitor::Config hc;
            hc.nodes = l.options.healthNodes.isEmpty() ? QList<QUrl>{l.options.indexer.rpcUrl}
                                                       : l.options.healthNodes;
            hc.interval = l.options.healthInterval;
            hc.timeout = l.options.healthTimeout;
            hc.lagThreshold = l.options.lagThreshold;
            hc.readyRatio = l.options.readyRatio;
            hc.dbPath = l.options.indexer.dbPath;
            hc.environmentId = l.options.indexer.environmentId;
            auto* monitor = new health::NodeHealthMonitor(hc);
            connect(monitor, &health::NodeHealthMonitor::healthAvailable, monitor,
                    [this](const health::HealthSnapshot& h) {
                        {
                            QMutexLocker lock(&m_mutex);
                            m_health = h;
                        }
                        emit healthAvailable(h);
                    });
            connect(monitor, &health::NodeHealthMonitor::nodeStateChanged, monitor,
                    [this](const QString& url, int from, int to) {
                        emit nodeStateChanged(url, from, to);
                    });
            l.monitor = l.healthThread.start(monitor, &health::NodeHealthMonitor::start);
            if (l.options.indexer.dbPath.isEmpty()) {
                publish(true); // node health only: nothing to index into
                return;
            }
            if (!openError.isEmpty()) {
                l.snap.fatal = openError;
                l.snap.state = QStringLiteral("stopped");
                emit logMessage(QStringLiteral("error"), l.snap.fatal);
                publish(true);
                return;
            }
            l.rpc = std::make_unique<rpc::JsonRpcClient>(l.options.indexer.rpcUrl);
            l.rpc->setTimeout(l.options.indexer.rpcTimeout);
            l.rpc->setMaxReplyBytes(l.options.indexer.maxReplyBytes);
            l.rpc->setStopToken(m_thread.stopToken());
            l.eth = std::make_unique<rpc::EthClient>(*l.rpc);
            if (!l.options.indexer.contracts.isEmpty())
                createIndexer();
            publish(true);
        },
        [this] { return step(); },
        [this] {
            Loop& l = *m_loop;
            // Health first (its own thread), then the dispatcher, then the indexer (its fetch
            // threads see the stop token and end their requests at once).
            l.healthThread.stop(
                [](QObject* m) { static_cast<health::NodeHealthMonitor*>(m)->stop(); });
            l.outbox.reset();
            l.indexer.reset();
            l.eth.reset();
            l.rpc.reset();
            l.db.reset();
            l.snap.running = false;
            if (l.snap.state != QLatin1String("stopped") && l.snap.fatal.isEmpty())
                l.snap.state = QStringLiteral("stopped");
            publish(true);
            emit stopped();
        });
}

void IndexingService::failed(const QString& message, bool truncation)
{
    Loop& l = *m_loop;
    // Fatal for this indexer (deep reorg, chain reset, database, a block not fetched
    // whole): shown, not retried; a repair or a new environment is the way on.
    l.snap.fatal = message;
    l.snap.fatalIsTruncation = truncation;
    l.snap.state = truncation ? QStringLiteral("data incomplete") : QStringLiteral("stopped");
    emit logMessage(QStringLiteral("error"), message);
    publish(true);
}

void IndexingService::restartAfterCrash(const QString& point)
{
    Loop& l = *m_loop;
    // What kill -9 leaves: the process state is gone, the database keeps only what was
    // committed. The indexer object goes, and so does its connection (closing it rolls an
    // open transaction back, as SQLite does for a dead process); a new one starts from
    // the database a second later, with the restart verification a fresh process runs.
    l.snap.crashArmed.clear();
    l.crashedAt = point;
    ++l.snap.restarts;
    l.indexer.reset();
    l.outbox.reset();
    l.db->rollback();
    l.db.reset();
    l.restartAt = QDeadlineTimer(1000);
    l.snap.state = QStringLiteral("crashed, restarting");
    emit logMessage(QStringLiteral("warning"),
                    QStringLiteral("indexer crashed at %1 (simulated kill -9); restarting it "
                                   "from the database")
                        .arg(point));
    publish(true);
}

void IndexingService::updateOutbox()
{
    Loop& l = *m_loop;
    const indexer::IndexerStatus& s = l.snap.status;
    if (!l.outbox && (!l.options.webhook.isEmpty() || !l.options.outboxFile.isEmpty()) &&
        l.indexer && l.indexer->chainId() != 0) {
        // Delivery runs on its own thread and connection: a slow or dead sink never holds
        // up indexing, and nothing is delivered above the safe height.
        l.outbox = std::make_unique<outbox::OutboxThread>(
            l.options.indexer.dbPath, l.options.indexer.environmentId, l.indexer->chainId(),
            l.options.webhook, l.options.outboxFile, l.options.webhookTimeout,
            [this](const QString& m) {
                emit logMessage(QStringLiteral("error"), QStringLiteral("outbox: %1").arg(m));
            },
            l.options.webhookBatch);
    }
    const auto ready = l.monitor ? l.monitor->readyHeight() : std::nullopt;
    l.snap.safeHeight = outbox::safeHeight(s.head, l.options.indexer.confirmations, ready);
    if (l.outbox && l.snap.safeHeight)
        l.outbox->setSafeHeight(*l.snap.safeHeight);
    l.snap.outboxPendingAtOrBelowSafe = -1;
    if (l.outbox && l.snap.safeHeight && s.state == indexer::IndexerStatus::State::Synced)
        l.snap.outboxPendingAtOrBelowSafe = outbox::pendingAtOrBelow(
            *l.db, l.options.indexer.environmentId, l.indexer->chainId(), *l.snap.safeHeight);
}

int IndexingService::step()
{
    Loop& l = *m_loop;
    if (!l.db && !l.restartAt)
        return -1; // the database could not be opened: nothing to do but wait for stop
    if (l.restartAt) {
        if (!l.restartAt->hasExpired())
            return int(std::max<qint64>(1, l.restartAt->remainingTime()));
        l.restartAt.reset();
        try {
            l.db = store::Database::open(l.options.indexer.dbPath,
                                         store::Database::Options::bulkWriter());
            createIndexer();
            emit logMessage(
                QStringLiteral("info"),
                QStringLiteral("indexer restarted after the crash at %1").arg(l.crashedAt));
            emit restartedAfterCrash(l.crashedAt);
        } catch (const std::exception& e) {
            failed(QStringLiteral("indexer restart failed: %1").arg(QString::fromUtf8(e.what())),
                   false);
            return -1;
        }
    }
    if (!l.indexer || l.snap.paused || l.snap.suspended || !l.snap.fatal.isEmpty()) {
        publish(true);
        return -1; // idle until a command
    }
    int next = int(l.options.indexer.pollInterval.count());
    const qint64 startedNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    try {
        const indexer::IndexerStatus& s = l.indexer->step();
        l.snap.stepStartedNs = startedNs;
        l.snap.status = s;
        l.snap.chainId = l.indexer->chainId();
        l.snap.state = indexer::IndexerStatus::stateName(s.state);
        if (s.blocksCommitted != l.lastBlocks ||
            s.state == indexer::IndexerStatus::State::Reorged) {
            if (l.lastBlocks >= 0 || s.blocksCommitted > 0)
                l.snap.lastCommitAt = QDateTime::currentDateTimeUtc();
            l.lastBlocks = s.blocksCommitted;
        }
        if (l.monitor && s.completeness.truncations() > 0 && s.completeness.lastShortBlock)
            l.monitor->reportDroppedLogs(l.snap.endpoint, s.completeness.truncations(),
                                         *s.completeness.lastShortBlock);
        updateOutbox();
        using State = indexer::IndexerStatus::State;
        if (s.state == State::Syncing || s.state == State::Reorged)
            next = 0;
        else if (s.retryDelayMs > 0)
            next = s.retryDelayMs;
        publish(s.state != State::Syncing);
    } catch (const rpc::RpcException& e) {
        // From prepare() (chain id, genesis): the node did not answer; that says nothing
        // about the chain. Try again after the poll interval.
        l.snap.status.state = indexer::IndexerStatus::State::NodeUnreachable;
        l.snap.status.message = e.error().toString();
        l.snap.state = indexer::IndexerStatus::stateName(l.snap.status.state);
        publish(true);
    } catch (const indexer::NodeBehindError& e) {
        l.snap.status.state = indexer::IndexerStatus::State::NodeBehind;
        l.snap.status.message = e.message();
        l.snap.state = indexer::IndexerStatus::stateName(l.snap.status.state);
        publish(true);
    } catch (const indexer::SimulatedCrash& e) {
        restartAfterCrash(e.point());
        return 1000;
    } catch (const indexer::DeepReorgError& e) {
        // Nothing is deleted until the user chooses: raise the limit, or reset.
        failed(e.message(), false);
        l.snap.state = QStringLiteral("stopped: reorg deeper than the limit");
        l.snap.deepReorgCheckpoint = e.checkpoint;
        l.snap.deepReorgLimit = e.maxDepth;
        publish(true);
        return -1;
    } catch (const wire::SuspectedTruncationError& e) {
        ++l.snap.suspectedTruncations;
        if (l.monitor)
            l.monitor->reportDroppedLogs(e.node.isEmpty() ? l.snap.endpoint : e.node,
                                         l.snap.suspectedTruncations, e.block);
        failed(e.message(), true);
        return -1;
    } catch (const std::exception& e) {
        failed(QString::fromUtf8(e.what()), false);
        return -1;
    }
    return next;
}

void IndexingService::setPaused(bool paused)
{
    m_thread.post([this, paused] {
        Loop& l = *m_loop;
        if (l.snap.paused == paused)
            return;
        l.snap.paused = paused;
        if (paused)
            l.snap.state = QStringLiteral("paused");
        emit logMessage(QStringLiteral("info"), paused ? QStringLiteral("indexing paused")
                                                       : QStringLiteral("indexing resumed"));
        publish(true);
    });
}

void IndexingService::armCrash(const QString& point)
{
    m_thread.post([this, point] {
        Loop& l = *m_loop;
        indexer::armInProcessCrash(point);
        l.snap.crashArmed = point;
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("lab: the indexer will crash at %1 the next time it gets "
                                       "there")
                            .arg(point));
        publish(true);
    });
}

void IndexingService::setVerifyReceipts(bool on)
{
    m_thread.post([this, on] {
        Loop& l = *m_loop;
        l.options.indexer.completeness.receipts = on;
        l.snap.verifyReceipts = on;
        // The fetch policy is fixed per indexer: a new one, from the committed checkpoint.
        if (l.indexer && l.db)
            createIndexer();
        emit logMessage(QStringLiteral("info"),
                        on ? QStringLiteral("receipts proof on: every block with logs of ours is "
                                            "proven against its receipts root")
                           : QStringLiteral("receipts proof off: the bloom check and the "
                                            "recount remain"));
        publish(true);
    });
}

void IndexingService::repair(quint64 fromBlock, const QString& node)
{
    m_thread.post([this, fromBlock, node] {
        Loop& l = *m_loop;
        if (!l.db || !l.eth) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("repair needs a running indexer and database"));
            return;
        }
        const QUrl url(node);
        try {
            // The indexer stops first: the rollback must not race its commits.
            l.indexer.reset();
            auto client = std::make_unique<rpc::JsonRpcClient>(url);
            client->setTimeout(l.options.indexer.rpcTimeout);
            client->setMaxReplyBytes(l.options.indexer.maxReplyBytes);
            client->setStopToken(m_thread.stopToken());
            auto eth = std::make_unique<rpc::EthClient>(*client);
            indexer::IndexerConfig ic = l.options.indexer;
            ic.rpcUrl = url;
            audit::EnvironmentRepair repair(*l.db, *eth, ic);
            const audit::RepairPlan plan = repair.plan(ic.environmentId, fromBlock);
            const audit::RepairRollback done = repair.rollBack(plan);
            if (plan.rollbackNeeded)
                emit logMessage(QStringLiteral("warning"),
                                QStringLiteral("repair: rolled back to block %1 in one "
                                               "transaction (reorg #%2, %3 rows removed, %4 "
                                               "completeness alert(s) resolved); indexing again "
                                               "from block %5 reading %6")
                                    .arg(done.rollback.forkBlock)
                                    .arg(done.rollback.reorgId)
                                    .arg(done.rollback.rowsRemoved)
                                    .arg(done.alertsResolved)
                                    .arg(plan.from)
                                    .arg(node));
            else
                emit logMessage(QStringLiteral("warning"),
                                QStringLiteral("repair: nothing stored from block %1 on, nothing "
                                               "to roll back (%2 completeness alert(s) "
                                               "resolved); fetching block %1 again reading %3")
                                    .arg(plan.from)
                                    .arg(done.alertsResolved)
                                    .arg(node));
            // The indexer reads the chosen node from now on.
            l.rpc = std::move(client);
            l.eth = std::move(eth);
            l.options.indexer = ic;
            l.snap.suspectedTruncations = 0;
            createIndexer();
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("repair from block %1 refused: %2")
                                .arg(fromBlock)
                                .arg(QString::fromUtf8(e.what())));
            if (!l.indexer && l.db && l.eth)
                createIndexer();
        }
        publish(true);
    });
}

void IndexingService::verifyStoredData()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        if (!l.db || !l.eth || !l.indexer) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("verify needs a running indexer and database"));
            return;
        }
        try {
            const QString env = l.options.indexer.environmentId;
            const audit::AuditTarget target = audit::AuditTarget::load(*l.db, env);
            audit::AuditRange range;
            if (const QString why = target.resolveRange(std::nullopt, std::nullopt, &range);
                !why.isEmpty()) {
                emit logMessage(QStringLiteral("info"), QStringLiteral("verify: %1").arg(why));
                return;
            }
            store::SqliteContractReader reader(*l.db);
            const audit::AuditResult r =
                audit::StoredDataAuditor(reader, *l.eth).audit(target, range);
            if (r.clean()) {
                emit logMessage(QStringLiteral("ok"),
                                QStringLiteral("verify: blocks %1-%2 hold exactly the node's "
                                               "logs (%3 blocks, %4 logs, %5 bloom false "
                                               "positives)")
                                    .arg(r.from)
                                    .arg(r.to)
                                    .arg(r.blocksChecked)
                                    .arg(r.storedLogs)
                                    .arg(r.bloomFalsePositives));
            } else if (const auto first = r.firstHole()) {
                // A hole in committed data: loud and persistent until repaired.
                const audit::AuditHole& hole = r.holes.first();
                indexer::CompletenessAlerts(*l.db, env, target.environment.chainId)
                    .record(l.snap.endpoint, *first, r.holes.last().block,
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
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("verify failed: %1").arg(QString::fromUtf8(e.what())));
        }
        publish(true);
    });
}

void IndexingService::suspend()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        // Nothing may write into the environment the lab is about to archive.
        l.outbox.reset();
        l.indexer.reset();
        l.snap.suspended = true;
        l.snap.state = QStringLiteral("suspended");
        publish(true);
        emit suspended();
    });
}

void IndexingService::resumeWith(const QString& environmentId,
                                 const QList<chain::Address>& contracts)
{
    m_thread.post([this, environmentId, contracts] {
        Loop& l = *m_loop;
        l.options.indexer.environmentId = environmentId;
        l.options.indexer.contracts = contracts;
        l.snap.suspended = false;
        l.snap.paused = false; // a reset promises to index the fresh chain
        l.snap.chainId = 0;
        l.lastBlocks = -1;
        if (l.db && l.eth && !contracts.isEmpty())
            createIndexer();
        publish(true);
    });
}

void IndexingService::setMaxReorgDepth(quint64 depth)
{
    m_thread.post([this, depth] {
        Loop& l = *m_loop;
        const quint64 before = l.options.indexer.maxReorgDepth;
        l.options.indexer.maxReorgDepth = std::max<quint64>(1, depth);
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("reorg limit raised from %1 to %2 block(s)%3")
                            .arg(before)
                            .arg(l.options.indexer.maxReorgDepth)
                            .arg(l.snap.deepReorgLimit > 0
                                     ? QStringLiteral("; indexing continues and rolls back "
                                                      "as far as the fork")
                                     : QString()));
        // The limit is part of the indexer's policy: a new one, from the committed checkpoint.
        if (l.db && l.eth && !l.options.indexer.contracts.isEmpty() && !l.snap.suspended)
            createIndexer();
        publish(true);
    });
}

void IndexingService::loseNextAcknowledgement()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        if (!l.indexer) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("lost acknowledgement: nothing is being indexed"));
            return;
        }
        l.indexer->loseNextAcknowledgement();
        emit logMessage(QStringLiteral("warning"),
                        QStringLiteral("lab: the answer to the next committed batch will be "
                                       "lost, so the batch is sent again"));
    });
}

void IndexingService::reportDroppedLogs(const QString& node, qint64 count, quint64 block)
{
    m_thread.post([this, node, count, block] {
        if (m_loop->monitor)
            m_loop->monitor->reportDroppedLogs(node, count, block);
    });
}

} // namespace forkscope::engine
