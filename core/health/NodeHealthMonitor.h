#pragma once

#include "NodeHealth.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QMetaType>
#include <QMutex>
#include <QObject>
#include <QUrl>
#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>

class QTimer;

namespace forkscope::rpc {
class JsonRpcClient;
}
namespace forkscope::store {
class ReadOnlyStore;
}

namespace forkscope::health {

// Polls every configured endpoint's head (eth_blockNumber, then that block's hash) every
// check interval with a per-call timeout, classifies each node (NodeState.h), keeps a
// bounded history for charts (24 h at 1 s per node) and computes the ready-ratio gate:
// a height counts as confirmed only when at least `readyRatio` of the nodes agree on it. A
// forked node agrees only up to its fork: the highest of its blocks that is the indexer's
// block at that height, found by walking its chain down from its head (at most
// kMaxForkSearch blocks, once per head it reports); until that is known it agrees on
// nothing.
// Lives on its own thread (moveToThread, then start()).
class NodeHealthMonitor : public QObject
{
    Q_OBJECT
public:
    struct Config
    {
        QList<QUrl> nodes;
        std::chrono::milliseconds interval{1000}; // down to 20
        std::chrono::milliseconds timeout{1000};
        std::uint64_t lagThreshold = 2;
        double readyRatio = 0.8;
        // Where the indexer's canonical blocks are (for "forked"): a SQLite file or a
        // shared index's postgresql:// URL; empty = not checked.
        QString dbPath;
        QString environmentId;
        std::uint64_t chainId = 0;
    };
    static constexpr qsizetype kHistoryLimit = 86400;
    static constexpr std::uint64_t kMaxForkSearch = 128;

    explicit NodeHealthMonitor(Config config, QObject* parent = nullptr);
    ~NodeHealthMonitor() override;

    // Thread-safe reads.
    HealthSnapshot snapshot() const;
    std::optional<std::uint64_t> readyHeight() const;
    QList<HealthSample> history(const QString& url) const;

    // A node shows "dropping logs" while something says it does, and no longer: an alert
    // clears when its cause is gone. Thread-safe; each takes effect from the next poll.
    // The indexer caught `url` returning fewer logs than its blocks commit to: `count` times
    // in all so far, the last at `block`.
    void reportDroppedLogs(const QString& url, qint64 count, std::uint64_t block);
    // The indexer committed blocks from `url` and caught nothing: what it caught before is
    // over (a cap removed).
    void clearDroppedLogs(const QString& url);
    // The nodes the environment's open completeness alerts name (url -> (alerts, first
    // block)), replacing the last set: a repair or a commit that resolves them unmarks them.
    void setAlertedNodes(const QHash<QString, QPair<qint64, quint64>>& nodes);
    // The environment whose blocks "forked" is judged against (a lab reset opens a new
    // one); what was caught on the old one's chain is forgotten. Thread-safe.
    void setEnvironment(const QString& environmentId);

public slots:
    void start();
    void stop();

signals:
    void healthAvailable(const forkscope::health::HealthSnapshot& snapshot);
    // from == to on a node's first poll: its initial state.
    void nodeStateChanged(const QString& url, int from, int to);

private:
    void poll();
    void finishPoll();
    // Walks node i's chain down from `height` until a block is the indexer's (its fork).
    void searchFork(qsizetype i, std::uint64_t height, std::uint64_t steps);
    struct ForkPoint
    {
        chain::Hash32 headHash;                // the forked head it was found for
        std::optional<std::uint64_t> agreedTo; // the highest block it shares; unknown yet
        bool searching = false;
    };
    QHash<QString, ForkPoint> m_forks; // only touched on the monitor's thread
    std::optional<chain::Hash32> canonicalHash(std::uint64_t height);

    Config m_config;
    QTimer* m_timer = nullptr;
    QList<rpc::JsonRpcClient*> m_clients;
    QList<NodeObservation> m_observations;
    QList<qint64> m_started;
    int m_outstanding = 0;
    std::unique_ptr<store::ReadOnlyStore> m_db;
    mutable QMutex m_mutex;
    QMutex m_envMutex; // guards m_config.environmentId (setEnvironment from the indexer)
    HealthSnapshot m_snapshot;
    QHash<QString, std::deque<HealthSample>> m_history;
    QHash<QString, QPair<qint64, std::uint64_t>> m_drops;   // caught: url -> (count, block)
    QHash<QString, QPair<qint64, std::uint64_t>> m_alerted; // open alerts: url -> (n, block)
    std::atomic<qint64> m_ready{-1};
};

} // namespace forkscope::health
