#include "IndexingService.h"
#include "IndexingServiceLoop.h"
#include "concurrency/WorkerThread.h"
#include "indexer/CrashPoints.h"
#include "indexer/Indexer.h"
#include "indexer/IndexerErrors.h"
#include "outbox/OutboxQueue.h"
#include "outbox/OutboxThread.h"
#include "outbox/SafeHeight.h"
#include "rpc/EthClient.h"
#include "store/OpenStore.h"
#include "store/StoreError.h"
#include "wire/SuspectedTruncationError.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>

namespace forkscope::engine {

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

QList<std::pair<QString, QList<health::HealthSample>>>
IndexingService::healthHistory(qint64 sinceMs) const
{
    QMutexLocker lock(&m_mutex);
    QList<std::pair<QString, QList<health::HealthSample>>> out;
    if (!m_monitor)
        return out;
    for (const health::NodeHealth& n : m_health.nodes) {
        QList<health::HealthSample> samples = m_monitor->history(n.url);
        samples.removeIf([sinceMs](const health::HealthSample& h) { return h.atMs < sinceMs; });
        out.append({n.url, samples});
    }
    return out;
}

void IndexingService::publish(bool force)
{
    Loop& l = *m_loop;
    // At most ~10 snapshots a second, however fast the indexer commits.
    if (!force && l.sincePublish.isValid() && l.sincePublish.elapsed() < 100)
        return;
    l.sincePublish.start();
    const indexer::IndexerStatus& s = l.snap.status;
    if (l.rateClock.isValid()) {
        // Over the last ten seconds (RateWindow.h), not the last one.
        l.rates.add(l.rateClock.elapsed(), s.logsCommitted, s.blocksCommitted);
        l.snap.eventsPerSecond = l.rates.eventsPerSecond();
        l.snap.blocksPerSecond = l.rates.blocksPerSecond();
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

store::StoreOptions IndexingService::storeOptions() const
{
    store::StoreOptions o;
    o.owner = m_options.indexer.owner;
    o.rangeLease = m_options.indexer.rangeLease;
    o.orphanRetention = m_options.indexer.orphanRetention;
    return o;
}

void IndexingService::createIndexer()
{
    Loop& l = *m_loop;
    l.indexer = std::make_unique<indexer::Indexer>(l.options.indexer, *l.store, *l.eth);
    l.storedHeads.clear();
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
        emit acknowledgementResent(quint64(from), quint64(to));
    };
    l.indexer->onAbsence = [this](const QList<std::uint64_t>& blocks, bool contradicted) {
        QList<quint64> out;
        for (auto b : blocks)
            out << quint64(b);
        emit absence(out, contradicted);
    };
    l.indexer->onTakeover = [this](const indexer::RangeClaim& c) {
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("range %1-%2: taken over from %3, %4")
                            .arg(c.from)
                            .arg(c.to)
                            .arg(c.takenOverFrom, c.ownerGone
                                                      ? QStringLiteral("whose process is gone")
                                                      : QStringLiteral("whose lease ran out")));
    };
    l.indexer->onLeadChanged = [this, env = l.options.indexer.environmentId](bool leads) {
        emit logMessage(
            QStringLiteral("info"),
            leads ? QStringLiteral("following the head of %1 (this writer leads it)").arg(env)
                  : QStringLiteral("another writer follows the head of %1; this one "
                                   "stands by")
                        .arg(env));
    };
    l.snap.environmentId = l.options.indexer.environmentId;
    l.snap.contracts.clear();
    for (const auto& c : l.options.indexer.sourceAddresses())
        l.snap.contracts << c.toHex();
    l.snap.endpoint = l.options.indexer.rpcUrl.toString();
    l.snap.outboxSink = m_snapshot.outboxSink; // the loop's snapshot replaces the first one
    l.snap.verifyReceipts = l.options.indexer.completeness.receipts;
    l.snap.fatal.clear();
    l.snap.halt = IndexingSnapshot::Halt::None;
    l.snap.deepReorgCheckpoint = 0;
    l.snap.deepReorgLimit = 0;
    l.snap.maxReorgDepth = l.options.indexer.maxReorgDepth;
    l.snap.status = {};
    l.rates.reset();
    l.lastTruncations = 0;
    l.retryingIncomplete = false;
    l.retryAt.reset();
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
            // Named from the start, indexer or not: the window's status bar and the log say
            // the same environment and node.
            l.snap.environmentId = l.options.indexer.environmentId;
            l.snap.endpoint = l.options.indexer.rpcUrl.toString();
            // The database first (the indexer creates and migrates it; health reads the
            // stored hashes from it), node health even when it cannot be opened.
            QString openError;
            if (!l.options.indexer.dbPath.isEmpty()) {
                try {
                    l.store = store::openIndexStore(l.options.indexer.dbPath, storeOptions());
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
            {
                QMutexLocker lock(&m_mutex);
                m_monitor = monitor;
            }
            if (l.options.indexer.dbPath.isEmpty()) {
                publish(true); // node health only: nothing to index into
                return;
            }
            if (l.store && !l.store->restoredSurface().isEmpty())
                emit logMessage(QStringLiteral("warning"), l.store->restoredSurface());
            if (!openError.isEmpty()) {
                l.snap.fatal = openError;
                l.snap.halt = IndexingSnapshot::Halt::Database;
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
            if (l.options.indexer.hasSources())
                createIndexer();
            publish(true);
        },
        [this] { return step(); },
        [this] {
            Loop& l = *m_loop;
            // Health first (its own thread), then the dispatcher, then the indexer (its fetch
            // threads see the stop token and end their requests at once).
            {
                QMutexLocker lock(&m_mutex);
                m_monitor = nullptr;
            }
            l.healthThread.stop(
                [](QObject* m) { static_cast<health::NodeHealthMonitor*>(m)->stop(); });
            l.outbox.reset();
            l.indexer.reset();
            l.eth.reset();
            l.rpc.reset();
            l.store.reset();
            l.snap.running = false;
            if (l.snap.state != QLatin1String("stopped") && l.snap.fatal.isEmpty())
                l.snap.state = QStringLiteral("stopped");
            publish(true);
            emit stopped();
        });
}

void IndexingService::failed(const QString& message, IndexingSnapshot::Halt halt)
{
    Loop& l = *m_loop;
    // Fatal for this indexer (deep reorg, chain reset, database, a block not fetched
    // whole): shown, not retried; a repair or a new environment is the way on. A block not
    // fetched whole is tried again from the same node when retryIncompleteAfter says so,
    // and said once, not at every try.
    const bool truncation = halt == IndexingSnapshot::Halt::Truncation;
    const bool again = l.retryingIncomplete && truncation && l.snap.fatal == message;
    l.retryingIncomplete = false;
    l.snap.fatal = message;
    l.snap.halt = halt;
    ++l.snap.haltCount;
    l.snap.state = truncation ? QStringLiteral("data incomplete") : QStringLiteral("stopped");
    if (truncation && l.options.retryIncompleteAfter.count() > 0)
        l.retryAt = QDeadlineTimer(l.options.retryIncompleteAfter);
    if (!again)
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
    l.store.reset();
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
            [url = l.options.indexer.dbPath, env = l.options.indexer.environmentId,
             chainId = l.indexer->chainId(),
             o = storeOptions()] { return store::openOutboxQueue(url, env, chainId, o); },
            l.options.webhook, l.options.outboxFile, l.options.webhookTimeout,
            [this](const QString& m) {
                emit logMessage(QStringLiteral("error"), QStringLiteral("outbox: %1").arg(m));
            },
            l.options.webhookBatch,
            [this, env = l.options.indexer.environmentId](bool delivers) {
                emit logMessage(QStringLiteral("info"),
                                delivers ? QStringLiteral("outbox: this writer delivers the "
                                                          "outbox of %1")
                                               .arg(env)
                                         : QStringLiteral("outbox: another writer delivers the "
                                                          "outbox of %1")
                                               .arg(env));
            });
    }
    const auto ready = l.monitor ? l.monitor->readyHeight() : std::nullopt;
    l.snap.safeHeight = outbox::safeHeight(s.head, l.options.indexer.confirmations, ready);
    if (l.outbox && l.snap.safeHeight)
        l.outbox->setSafeHeight(*l.snap.safeHeight);
    l.snap.outboxPendingAtOrBelowSafe = -1;
    if (l.outbox && l.snap.safeHeight && s.state == indexer::IndexerStatus::State::Synced)
        l.snap.outboxPendingAtOrBelowSafe = l.store->outboxPendingAtOrBelow(*l.snap.safeHeight);
}

void IndexingService::recordSightings()
{
    Loop& l = *m_loop;
    if (!l.store || !l.indexer || l.indexer->chainId() == 0)
        return; // the store is bound to the environment once the indexer prepared it
    health::HealthSnapshot h;
    {
        QMutexLocker lock(&m_mutex);
        h = m_health;
    }
    l.snap.nodeHeadsSampled = h.at.isValid();
    QList<forktree::NodeSighting> changed;
    for (const health::NodeHealth& n : std::as_const(h.nodes)) {
        // The node's name without credentials a URL may carry.
        const QString node = QUrl(n.url).toString(QUrl::RemoveUserInfo);
        if (n.head && n.headHash && l.storedHeads.value(node) != *n.headHash)
            changed.append({node, *n.head, *n.headHash, h.at});
    }
    if (changed.isEmpty())
        return;
    try {
        l.store->recordSightings(changed);
        l.snap.sightingsStored += changed.size();
        for (const forktree::NodeSighting& s : std::as_const(changed))
            l.storedHeads.insert(s.node, s.hash);
        l.sightingError.clear();
    } catch (const std::exception& e) {
        // The fork tree misses these heads; indexing goes on (the next change is tried).
        const QString why = QString::fromUtf8(e.what());
        if (why != l.sightingError)
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("node heads not stored: %1").arg(why));
        l.sightingError = why;
    }
}

int IndexingService::step()
{
    Loop& l = *m_loop;
    if (!l.store && !l.restartAt)
        return -1; // the database could not be opened: nothing to do but wait for stop
    if (l.restartAt) {
        if (!l.restartAt->hasExpired())
            return int(std::max<qint64>(1, l.restartAt->remainingTime()));
        l.restartAt.reset();
        try {
            l.store = store::openIndexStore(l.options.indexer.dbPath, storeOptions());
            if (!l.store->restoredSurface().isEmpty())
                emit logMessage(QStringLiteral("warning"), l.store->restoredSurface());
            createIndexer();
            emit logMessage(
                QStringLiteral("info"),
                QStringLiteral("indexer restarted after the crash at %1").arg(l.crashedAt));
            emit restartedAfterCrash(l.crashedAt);
        } catch (const std::exception& e) {
            failed(QStringLiteral("indexer restart failed: %1").arg(QString::fromUtf8(e.what())),
                   IndexingSnapshot::Halt::Database);
            return -1;
        }
    }
    if (l.retryAt && l.snap.halt == IndexingSnapshot::Halt::Truncation && l.indexer &&
        !l.snap.paused && !l.snap.suspended) {
        if (!l.retryAt->hasExpired())
            return int(std::max<qint64>(1, l.retryAt->remainingTime()));
        // The same node again, from the committed checkpoint: if it now returns the block
        // whole, the commit resolves the alert and indexing goes on.
        l.retryAt.reset();
        const QString fatal = l.snap.fatal;
        createIndexer();
        l.snap.fatal = fatal; // until a commit or another error says otherwise
        l.snap.halt = IndexingSnapshot::Halt::Truncation;
        l.snap.state = QStringLiteral("data incomplete");
        l.retryingIncomplete = true;
    }
    if (!l.indexer || l.snap.paused || l.snap.suspended ||
        (!l.snap.fatal.isEmpty() && !l.retryingIncomplete)) {
        publish(true);
        return -1; // idle until a command
    }
    int next = int(l.options.indexer.pollInterval.count());
    const qint64 startedNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now().time_since_epoch())
                                 .count();
    try {
        const indexer::IndexerStatus& s = l.indexer->step();
        if (l.retryingIncomplete) {
            if (s.blocksCommitted == 0) {
                publish(true);
                return next; // not past the block yet: still data incomplete
            }
            // The node returned the range whole this time: the stop is over.
            l.retryingIncomplete = false;
            l.snap.fatal.clear();
            l.snap.halt = IndexingSnapshot::Halt::None;
            emit logMessage(QStringLiteral("ok"),
                            QStringLiteral("%1 now returns the blocks it did not return whole; "
                                           "indexing goes on")
                                .arg(l.snap.endpoint));
        }
        l.snap.stepStartedNs = startedNs;
        l.snap.status = s;
        l.snap.chainId = l.indexer->chainId();
        l.snap.state = indexer::IndexerStatus::stateName(s.state);
        const bool committed = s.blocksCommitted != l.lastBlocks && l.lastBlocks >= 0;
        if (s.blocksCommitted != l.lastBlocks ||
            s.state == indexer::IndexerStatus::State::Reorged) {
            if (l.lastBlocks >= 0 || s.blocksCommitted > 0)
                l.snap.lastCommitAt = QDateTime::currentDateTimeUtc();
            l.lastBlocks = s.blocksCommitted;
        }
        // What the proofs caught on this node this step marks it "dropping logs"; blocks
        // committed from it with nothing caught clear the mark: the fault is gone.
        if (l.monitor) {
            const qint64 caught = s.completeness.truncations();
            if (caught > l.lastTruncations && s.completeness.lastShortBlock)
                l.monitor->reportDroppedLogs(l.snap.endpoint, caught,
                                             *s.completeness.lastShortBlock);
            else if (committed)
                l.monitor->clearDroppedLogs(l.snap.endpoint);
            l.lastTruncations = caught;
        }
        updateOutbox();
        recordSightings();
        using State = indexer::IndexerStatus::State;
        if (s.state == State::Syncing || s.state == State::Reorged)
            next = 0;
        else if (s.retryDelayMs > 0)
            next = s.retryDelayMs;
        publish(s.state != State::Syncing);
    } catch (const rpc::RpcException& e) {
        // From prepare() (chain id, genesis): the node did not answer, or answered another
        // request; that says nothing about the chain. Try again after the poll interval.
        l.snap.status.state = e.error().kind == rpc::RpcError::Kind::Mismatch
                                  ? indexer::IndexerStatus::State::NodeInconsistent
                                  : indexer::IndexerStatus::State::NodeUnreachable;
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
        failed(e.message(), IndexingSnapshot::Halt::DeepReorg);
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
        failed(e.message(), IndexingSnapshot::Halt::Truncation);
        return l.retryAt ? int(std::max<qint64>(1, l.retryAt->remainingTime())) : -1;
    } catch (const store::StoreError& e) {
        failed(QString::fromUtf8(e.what()), IndexingSnapshot::Halt::Database);
        return -1;
    } catch (const std::exception& e) {
        failed(QString::fromUtf8(e.what()), IndexingSnapshot::Halt::Other);
        return -1;
    }
    return next;
}

} // namespace forkscope::engine
