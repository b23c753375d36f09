#pragma once

#include "EngineConfig.h"
#include "EngineStatus.h"
#include "TablePage.h"
#include "indexer/IndexerConfig.h"
#include "report/CheckpointReport.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

#include <QScopeGuard>
#include <QTemporaryDir>
#include <functional>
#include <memory>

class QThread;
class QTimer;

namespace forkscope::lab {
class Devnet;
class FaultProxy;
} // namespace forkscope::lab
namespace forkscope::rpc {
class JsonRpcClient;
class EthClient;
} // namespace forkscope::rpc
namespace forkscope::indexer {
class Indexer;
}
namespace forkscope::health {
class NodeHealthMonitor;
}
namespace forkscope::lab {
class DemoToken;
}
namespace forkscope::store {
class Database;
}
namespace forkscope::outbox {
class OutboxThread;
}

namespace forkscope::engine {

// The engine's worker object. Lives on its own QThread (see EngineHost): it starts the
// managed devnet if asked, opens the database on this thread (one connection per thread),
// and polls the node without ever blocking the GUI.
class EngineSession : public QObject
{
    Q_OBJECT
public:
    explicit EngineSession(EngineConfig config, QObject* parent = nullptr);
    ~EngineSession() override;

public slots:
    void start();
    void stop();
    // Pauses or resumes the indexer only (the node, health and demo traffic go on).
    void setIndexingPaused(bool paused);
    // Reads what reorg `id` undid; answers with reorgDiffAvailable.
    void requestReorgDiff(qint64 id);
    // Reads one page of a browsable table; answers with tablePageAvailable.
    void requestTablePage(const forkscope::engine::TableRequest& request);
    // Stops the managed anvil (its chain is dumped to a state file) or starts it again on
    // the same port from that state, so the same chain and environment continue. The
    // indexer waits meanwhile; health shows the node offline.
    void setDevnetRunning(bool running);

    // Lab controls. Each one is followed by an invariant check once the indexer has
    // caught up (statusAvailable carries the verdict; the log gets an ok/fail line).
    void setDemoTraffic(bool on, int transfersPerTick);
    void injectReorg(int depth, int txMode); // lab::ReorgTxMode
    void rollbackBlocks(int blocks);
    void setProxyKnobs(int node, const QJsonObject& changes);
    // Arms a crash point; the indexer "dies" there (SimulatedCrash) and is restarted from
    // the database. mid-rollback needs a reorg to happen, so one of depth 3 is injected.
    void crashIndexer(const QString& point);
    void checkInvariants(const QString& reason);
    // "Reset lab environment": stops indexing, anvil_reset, archives the environment
    // (rows kept, read-only), opens a new one, redeploys the demo token, indexes again.
    void resetLab();
    // Repair... (the data-incomplete banner): rolls the environment back to fromBlock - 1
    // in one transaction (a reorg with reason "repair", the open completeness alerts it
    // covers resolved in it), then indexes on from there reading `node` (another watched
    // node, or the same). Answers through statusAvailable/logMessage.
    void repair(quint64 fromBlock, const QString& node);
    // Engine > Verify stored data: audits every indexed block against the node (as
    // `forkscope verify`); a hole records a completeness alert from its first block, which
    // raises the banner and offers Repair...
    void verifyStoredData();
    // Lab > Verify receipts: adds the receipts proof to every fetch (--verify receipts).
    void setVerifyReceipts(bool on);
    // Builds the checkpoint report of `environmentId` (empty: the live one); with
    // `verify`, each checkpoint hash is re-checked against the node now.
    void requestReport(quint64 ticket, const QString& environmentId, bool verify);

signals:
    void statusAvailable(const forkscope::engine::EngineStatus& status);
    void logMessage(const QString& level, const QString& text);
    void reorgDiffAvailable(const forkscope::engine::ReorgDiff& diff);
    void tablePageAvailable(const forkscope::engine::TablePage& page);
    void reportAvailable(quint64 ticket, const forkscope::report::CheckpointReport& report);
    void reportFailed(quint64 ticket, const QString& error);

private:
    void poll();
    void publish(bool force = true);
    void startIndexing(const QUrl& url);
    void indexStep();
    void demoTick();

    EngineConfig m_config;
    EngineStatus m_status;
    std::unique_ptr<lab::Devnet> m_devnet;
    std::unique_ptr<store::Database> m_db;
    // A second connection for what the GUI browses (tables, diffs): a read that arrives in
    // a nested event loop while a step holds a write transaction on m_db must not see
    // that transaction's uncommitted rows. The GUI shows only what is committed.
    std::unique_ptr<store::Database> m_readDb;
    std::unique_ptr<outbox::OutboxThread> m_outbox;
    QTemporaryDir m_devnetState; // where a stopped managed anvil keeps its chain
    quint16 m_devnetPort = 0;
    void startDevnet();
    rpc::JsonRpcClient* m_rpc = nullptr;      // the indexed node (lab node 1 in a proxied lab)
    rpc::JsonRpcClient* m_anvilRpc = nullptr; // anvil itself in a managed lab, else m_rpc
    QTimer* m_pollTimer = nullptr;
    bool m_pollInFlight = false;
    // The indexer and demo traffic run on this (the engine's) thread; their blocking
    // RPC never touches the GUI thread.
    std::unique_ptr<rpc::EthClient> m_eth;
    std::unique_ptr<indexer::Indexer> m_indexer;
    indexer::IndexerConfig m_ic; // what createIndexer() builds from
    QTimer* m_indexTimer = nullptr;
    std::unique_ptr<lab::DemoToken> m_demo;
    QTimer* m_demoTimer = nullptr;
    quint64 m_demoOffset = 0;
    // Blocking RPC spins nested event loops, in which a queued stop() can arrive while a
    // step is still on the stack; it is then deferred until the step unwinds.
    int m_busy = 0;
    [[nodiscard]] auto busyScope()
    {
        ++m_busy;
        return qScopeGuard([this] {
            if (--m_busy == 0 && m_stopRequested)
                finishStop();
        });
    }
    // A lab action on anvil: logged, then the verdict is requested; errors are logged.
    void runLabAction(const QString& action, const std::function<QString()>& act);
    bool m_stopRequested = false;
    void finishStop();
    void archiveManagedEnvironment();
    QElapsedTimer m_sincePublish;
    QElapsedTimer m_sinceDbSummary;
    QThread* m_healthThread = nullptr;
    QPointer<health::NodeHealthMonitor> m_monitor;
    void startHealth(const QUrl& url);
    void refreshDbSummary();
    QElapsedTimer m_rateClock;
    qint64 m_rateBase = 0;
    qint64 m_blockRateBase = 0;
    QElapsedTimer m_outboxRateClock;
    qint64 m_outboxRateBase = -1;
    void updateSafeHeight();
    void createIndexer();
    void restartIndexerAfterCrash(const QString& point);
    void runVerdict();
    void requestVerdict(const QString& action);
    bool labAvailable(const QString& action);
    void startLabProxies(const QUrl& upstream);
    void deployDemoToken();
    QList<chain::Address> indexedContracts() const;
    // Points the indexer's config and the status at an environment and its contracts.
    void useEnvironment(const QString& environmentId, const QList<chain::Address>& contracts);
    void refreshEnvironments();
    void publishProxyKnobs();
    QThread* m_proxyThread = nullptr;
    QList<QPointer<lab::FaultProxy>> m_proxies;
    QString m_verdictAction; // non-empty: a check is due once the indexer is synced
    // Once the indexer knows the chain id (after its first step).
    void startOutbox();
};

} // namespace forkscope::engine
