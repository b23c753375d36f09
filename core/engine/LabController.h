#pragma once

#include "EngineConfig.h"
#include "EngineStatus.h"
#include "chain/Address.h"
#include "concurrency/LoopThread.h"
#include "wire/FactorySource.h"

#include <QJsonObject>
#include <QMetaType>
#include <QObject>
#include <QUrl>
#include <memory>

namespace forkscope::lab {
class EnvironmentBook;
}

namespace forkscope::engine {

// Where the lab's chain is, once set up: the indexer reads `nodes.first()` (or anvil).
struct LabSetup
{
    QUrl anvilUrl;     // the managed anvil itself (ground truth of the verdicts)
    QList<QUrl> nodes; // fault proxies in front of it, the lab's "nodes" (may be empty)
    QString environmentId;
    QList<chain::Address> contracts;      // the demo token and the configured contracts
    QList<wire::FactorySource> factories; // the demo factory and the configured ones
};

// What the lab is doing, as a value.
struct LabSnapshot
{
    bool managed = false;
    bool devnetRunning = false;
    bool devnetStoppedByUser = false; // Stop devnet, not a crash: Start devnet is the way on
    bool labReady = false;            // set up, not resetting: lab actions act
    bool demoTraffic = false;
    int demoTransfersPerTick = 0;
    QStringList labNodes;
    QList<QJsonObject> proxyKnobs;
    InvariantVerdict verdict;
    QString replicaUrl; // the forked replica serving node 2, if one runs
    bool secondWriterRunning = false;
    qint64 secondWriterRefusals = 0; // compare-and-swap refusals the second writer met
    qint64 secondWriterCommits = 0;
    QString deepReorgPending; // what is waiting for the indexer before a deep reorg
    // The lab's own outbox receiver (lab::LabSink), once a scenario started it: the engine
    // routes the outbox there.
    QString labSinkUrl;
};

// The lab's hands and eyes: the managed anvil, the fault proxies, demo traffic, reorg and
// crash workloads, lab reset, the invariant verdict, and the scenarios (forked replica,
// second writer, deep reorg). On a LoopThread of its own ("forkscope-lab"), so a lab
// action blocked on anvil (or on a proxy's 10 s latency) never holds up the indexer, the
// window, or a stop; commands run between its steps only (see LoopThread).
//
// It never writes indexed data: a reset archives the environment only after the
// coordinator suspended indexing (IndexingService::suspend).
class LabController : public QObject
{
    Q_OBJECT
public:
    explicit LabController(EngineConfig config, QObject* parent = nullptr);
    ~LabController() override;
    struct Loop; // what lives on the lab thread (LabControllerLoop.h)

    void start();
    void requestStop();
    bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));
    concurrency::LoopThread::Stats stats() const { return m_thread.stats(); }

    // Commands, from any thread; each answers through snapshotAvailable/logMessage.
    void setDevnetRunning(bool running);
    void setDemoTraffic(bool on, int transfersPerTick);
    void injectReorg(int depth, int txMode);
    void rollbackBlocks(int blocks);
    void setProxyKnobs(int node, const QJsonObject& changes);
    void sprayOne(); // something for an armed crash point to commit
    // The verdict is checked once the indexer reports itself synced (indexerSynced).
    void requestVerdict(const QString& action);
    // From the coordinator, for each synced snapshot: `stepStartedNs` is when the step that
    // found the indexer synced began (steady clock), so a verdict requested after an action
    // is checked only on a step that began after it.
    void indexerSynced(const QString& environmentId, quint64 checkpoint, qint64 stepStartedNs);
    // From the coordinator, while the indexer is stopped and waits for the user
    // (EngineStatus::IndexerHalt as an int, and what stopped it): a verdict due now, or
    // asked for while it waits, is settled at once by what stopped it instead of waiting
    // for a catch-up that will not come.
    void indexerHalted(const QString& environmentId, int halt, const QString& why);
    // Indexing must be suspended: archives `environmentId`, resets anvil, deploys the demo
    // token again; answers resetDone or resetFailed.
    void reset(const QString& environmentId);
    // Scenarios: node 2 serves an anvil forked from the lab's at its head,
    // with blocks of its own after it.
    void startForkedReplica(int extraBlocks);
    void stopForkedReplica();
    // A second indexer on the live environment for `seconds`, racing the first.
    void startSecondWriter(const QString& environmentId, int seconds);
    // Mines past the indexer's reorg limit, waits until it indexed that, then replaces
    // maxReorgDepth + 1 blocks.
    void injectDeepReorg(quint64 maxReorgDepth);
    // The outbox's lost acknowledgement: the lab's receiver applies the next new row and
    // drops its answer; the verdict follows once the dispatcher sent it again (same key).
    void loseNextOutboxAcknowledgement();

signals:
    void ready(const forkscope::engine::LabSetup& setup);
    void failed(const QString& message);
    void resetDone(const forkscope::engine::LabSetup& setup);
    void resetFailed(const QString& message);
    void snapshotAvailable(const forkscope::engine::LabSnapshot& snapshot);
    void logMessage(const QString& level, const QString& text);
    void stopped();

private:
    int step();
    void setUp();
    void tearDown();
    void startDevnet();
    void startProxies();
    void deployDemoToken();
    LabSetup setup() const;
    bool available(const QString& action);
    void runAction(const QString& action, const std::function<QString()>& act);
    void runVerdict();
    void dueVerdict(const QString& action); // checked once the indexer has caught up
    void settleOnHalt();                    // a due verdict while the indexer is halted
    void publish();
    void publishKnobs();
    void secondWriterStep();
    void outboxAckStep();
    QString outboxAckCheck(bool* ok); // runVerdict's outbox line, when the scenario ran
    void archiveLiveEnvironment();
    // The database's environments, on either store (opened when first needed).
    lab::EnvironmentBook& book();
    QList<chain::Address> contracts() const;
    QList<wire::FactorySource> factories() const;
    void demoFactoryTick();

    EngineConfig m_config;
    concurrency::LoopThread m_thread;
    std::unique_ptr<Loop> m_loop;
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::LabSetup)
Q_DECLARE_METATYPE(forkscope::engine::LabSnapshot)
