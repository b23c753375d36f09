#pragma once

#include "concurrency/LoopThread.h"
#include "health/NodeHealthMonitor.h"
#include "indexer/IndexerConfig.h"
#include "indexer/IndexerStatus.h"
#include "indexer/RollbackResult.h"

#include <QDateTime>
#include <QMetaType>
#include <QMutex>
#include <QObject>
#include <QUrl>
#include <chrono>
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
    // The indexer stopped and is not retried: why, and whether it was a block that could
    // not be fetched whole (a completeness alert, "data incomplete").
    QString fatal;
    bool fatalIsTruncation = false;
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
    // The lab's "lost acknowledgement" (Indexer::loseNextAcknowledgement).
    void loseNextAcknowledgement();
    // Marks a node as dropping logs in node health (an open completeness alert).
    void reportDroppedLogs(const QString& node, qint64 count, quint64 block);
    void resumeWith(const QString& environmentId, const QList<chain::Address>& contracts);

    // Thread-safe copies of the latest values.
    IndexingSnapshot snapshot() const;
    health::HealthSnapshot health() const;
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
    void stopped();

private:
    struct Loop; // what lives on the loop thread
    // On the loop thread only.
    int step();
    void createIndexer();
    void restartAfterCrash(const QString& point);
    void failed(const QString& message, bool truncation);
    void updateOutbox();
    void publish(bool force);
    store::StoreOptions storeOptions() const;

    IndexingOptions m_options;
    concurrency::LoopThread m_thread;
    std::unique_ptr<Loop> m_loop;
    mutable QMutex m_mutex;
    IndexingSnapshot m_snapshot;
    health::HealthSnapshot m_health;
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::IndexingSnapshot)
