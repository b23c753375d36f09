#pragma once

#include "SourceSpec.h"
#include "concurrency/LoopThread.h"
#include "health/NodeHealthMonitor.h"
#include "indexer/IndexerConfig.h"
#include "indexer/IndexerStatus.h"
#include "indexer/RollbackResult.h"

#include <QDateTime>
#include <QHash>
#include <QMetaType>
#include <QMutex>
#include <QObject>
#include <QUrl>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace forkscope::store {
struct StoreOptions;
}

namespace forkscope::engine {

// How to run an indexer: the indexer itself, the node health it is gated by, and where its
// outbox goes. `forkscope index` and the desktop engine fill the same struct.
struct IndexingOptions
{
    indexer::IndexerConfig indexer;
    QList<QUrl> healthNodes; // watched for health and the gate; empty: the indexed node
    std::chrono::milliseconds healthInterval{1000};
    std::chrono::milliseconds healthTimeout{1000};
    std::uint64_t lagThreshold = 2;
    double readyRatio = 0.8;
    QUrl webhook;       // outbox delivery by HTTP POST, or
    QString outboxFile; // as JSON Lines (at most one of the two)
    std::chrono::milliseconds webhookTimeout{5000};
    int webhookBatch = 1;
    // After a block the node did not return whole, try the same node again this long after
    // (0: stop for good, as `forkscope index` does). The desktop retries, so a fault that
    // goes away (a cap removed) clears its alert and its marks by itself; the open alert
    // is kept, not recorded again.
    std::chrono::milliseconds retryIncompleteAfter{0};
};

// What the indexing service is doing, as a value (one per step at most ~10 a second).
struct IndexingSnapshot
{
    indexer::IndexerStatus status;
    QString state; // what to show: the indexer's state, or paused, suspended, stopped, ...
    QString environmentId;
    QStringList contracts;
    QString endpoint; // the node the indexer reads
    std::uint64_t chainId = 0;
    bool running = false; // the loop runs (false before start and after stop)
    bool paused = false;
    bool suspended = false; // the lab took the environment away (reset in progress)
    bool verifyReceipts = false;
    QString crashArmed;
    int restarts = 0; // after simulated crashes
    // The indexer stopped and is not retried (a block not fetched whole: retried only with
    // retryIncompleteAfter): why, and what kind of stop it is.
    enum class Halt {
        None,
        Database,   // the database could not be opened or written
        DeepReorg,  // a reorg deeper than maxReorgDepth
        Truncation, // a block not fetched whole (a completeness alert, "data incomplete")
        Other,
    };
    QString fatal;
    Halt halt = Halt::None;
    quint64 haltCount = 0; // stops so far: tells a stop from one a command has since lifted
    // A reorg deeper than maxReorgDepth stopped the indexer, nothing deleted: the checkpoint
    // it stopped at and the limit (0: none). The user chooses: raise the limit and continue
    // (setMaxReorgDepth), or reset the environment.
    quint64 deepReorgCheckpoint = 0;
    quint64 deepReorgLimit = 0;
    quint64 maxReorgDepth = 0;
    qint64 suspectedTruncations = 0;
    std::optional<std::uint64_t> safeHeight;
    // With a sink: outbox rows at or below the safe height still to go (what
    // `--exit-when-synced` waits for); -1 when not counted.
    qint64 outboxPendingAtOrBelowSafe = -1;
    // A node health sample has been taken and its heads stored in the fork tree (or the
    // failure to store them logged): `--exit-when-synced` waits for it, so a short run
    // leaves the node's head it synced against on record.
    bool nodeHeadsSampled = false;
    qint64 sightingsStored = 0; // node heads stored for the fork tree by this service
    qint64 outboxDelivered = 0; // by this service's dispatcher
    qint64 outboxRefused = 0;
    QString outboxSink;
    double eventsPerSecond = 0;
    double blocksPerSecond = 0;
    QDateTime lastCommitAt;
    // steady_clock time (ns) at which the step that produced `status` began: a lab verdict
    // requested after an action waits for a step that began after it.
    qint64 stepStartedNs = 0;
};

// The indexer with everything that runs beside it: crash restart, node health and the
// ready-ratio gate, the outbox dispatcher and the safe height it delivers up to. One
// instance per indexed environment, used by `forkscope index` and by the desktop engine.
//
// The indexer runs on a LoopThread of its own: commands (pause, crash, repair, ...) are
// queued and applied between steps, never inside one; its blocking RPC waits are its own
// business and end at once when stop is requested (the stop token reaches the JSON-RPC
// clients and the fetch threads). Snapshots go out as values through snapshotAvailable.
class IndexingService : public QObject
{
    Q_OBJECT
public:
    explicit IndexingService(IndexingOptions options, QObject* parent = nullptr);
    ~IndexingService() override; // requestStop() and wait()

    void start();
    void requestStop(); // non-blocking
    bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));
    bool isRunning() const;

    // Commands, from any thread; applied between two steps.
    void setPaused(bool paused);
    void armCrash(const QString& point); // the lab's "Crash the indexer"
    void setVerifyReceipts(bool on);
    // Rolls back to fromBlock - 1 in one transaction (reason repair) and reads `node` from
    // then on (audit::EnvironmentRepair).
    void repair(quint64 fromBlock, const QString& node);
    // Audits the indexed blocks against the node; a hole records an "audit" alert.
    void verifyStoredData();
    // The lab: stop writing into the environment (answers suspended()), then index another.
    void suspend();
    // Raises (or sets) the reorg limit; after a deep reorg stop, indexing continues and the
    // rollback it refused happens now.
    void setMaxReorgDepth(quint64 depth);
    // Delivers the outbox to `webhook` from now on (a lab scenario's receiver): a new
    // dispatcher, from the rows not delivered yet.
    void setOutboxWebhook(const QUrl& webhook);
    // The lab's "lost acknowledgement" (Indexer::loseNextAcknowledgement).
    void loseNextAcknowledgement();
    // Indexer::addSource on the indexer's thread; restarts keep the contract.
    void addSource(const QString& address, std::optional<quint64> fromBlock);
    // Indexer::addFactory, the same way (`spec` of Kind::Factory).
    void addFactory(const SourceSpec& spec, std::optional<quint64> fromBlock);
    // The nodes named by the environment's open completeness alerts (url -> (alerts, first
    // block)), replacing the last set: node health marks them "dropping logs" until their
    // alerts are resolved.
    void setAlertedNodes(const QHash<QString, QPair<qint64, quint64>>& nodes);
    void resumeWith(const QString& environmentId, const QList<chain::Address>& contracts,
                    const QList<wire::FactorySource>& factories);

    // Thread-safe copies of the latest values.
    IndexingSnapshot snapshot() const;
    health::HealthSnapshot health() const;
    // Every watched node's health samples since `sinceMs` (ms since the epoch), in node
    // order: a live report's node-health chart.
    QList<std::pair<QString, QList<health::HealthSample>>> healthHistory(qint64 sinceMs) const;
    concurrency::LoopThread::Stats stats() const { return m_thread.stats(); }

signals:
    void snapshotAvailable(const forkscope::engine::IndexingSnapshot& snapshot);
    void healthAvailable(const forkscope::health::HealthSnapshot& snapshot);
    void logMessage(const QString& level, const QString& text);
    void reorged(const forkscope::indexer::RollbackResult& rollback, const QString& reason);
    void absence(const QList<quint64>& blocks, bool contradicted);
    void nodeStateChanged(const QString& url, int from, int to);
    void suspended();
    void restartedAfterCrash(const QString& point);
    // A batch whose acknowledgement was lost was sent again and refused (the lab's lost
    // acknowledgement): the verdict follows it.
    void acknowledgementResent(quint64 fromBlock, quint64 toBlock);
    void stopped();

private:
    struct Loop; // what lives on the loop thread
    void addSourceOnLoop(const QString& what, std::function<QString(Loop&)> add);
    // On the loop thread only.
    int step();
    void createIndexer();
    void restartAfterCrash(const QString& point);
    void failed(const QString& message, IndexingSnapshot::Halt halt);
    void updateOutbox();
    // Each node's head since the last step, where its hash changed, into node_sightings.
    void recordSightings();
    void publish(bool force);
    store::StoreOptions storeOptions() const;

    IndexingOptions m_options;
    concurrency::LoopThread m_thread;
    std::unique_ptr<Loop> m_loop;
    mutable QMutex m_mutex;
    health::NodeHealthMonitor* m_monitor = nullptr; // under m_mutex; null once it stops
    IndexingSnapshot m_snapshot;
    health::HealthSnapshot m_health;
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::IndexingSnapshot)
