#pragma once

#include "EngineApi.h"
#include "EngineConfig.h"
#include "LagDamper.h"
#include "concurrency/LoopThread.h"

#include <QMap>
#include <QObject>
#include <QTimer>
#include <memory>
#include <vector>

namespace forkscope::engine {

class ForeignWatchService;
class IndexingService;
class LabRunService;
class LabController;
class ReadService;
struct IndexingSnapshot;
struct LabSnapshot;
struct LabSetup;
struct DbSummary;

// The engine behind EngineApi (the only engine type widgets see): a thin coordinator on the
// GUI thread. The work runs on three workers of its own, each a
// LoopThread whose commands run between its steps only (never in a nested event loop):
//   IndexingService  the indexer, crash restart, node health, outbox, safe height;
//   LabController    the managed anvil, fault proxies, demo traffic, lab actions, verdicts;
//   ReadService      tables, diffs, reports and the summary, on a read-only connection.
// The same three on either store: a SQLite file or a postgresql:// URL (the store opens by
// its URL, store::openIndexStore and store::ReadOnlyStore).
// Their snapshots arrive here as values by queued signal; the host merges them into one
// EngineStatus and hands it on, at most ~10 times a second (Bitcoin Core's ClientModel:
// the model polls on its own thread, the GUI only renders). Every method returns at once:
// stop, restart and quit never wait for the node.
class EngineHost : public EngineApi
{
    Q_OBJECT
public:
    explicit EngineHost(QObject* parent = nullptr);
    ~EngineHost() override; // stops and joins the workers (quit)

    void start(const EngineConfig& config);
    // Asks the workers to stop and returns at once; they finish within tens of
    // milliseconds (their blocking waits see the stop token), the lab archives its
    // environment once the indexer has stopped, and stopped() follows. Safe to call twice.
    void shutdown();
    // For tests and the command line: joins what shutdown() stopped.
    bool waitForStopped(int timeoutMs = 30000);

    bool isRunning() const override;
    void setIndexingPaused(bool paused) override;
    void requestReorgDiff(qint64 id) override;
    void requestForkTree(const forktree::ForkTreeRequest& request) override;
    void requestForkBlock(const chain::Hash32& hash) override;
    void requestTablePage(const forkscope::engine::TableRequest& request) override;
    void requestSourceList() override;
    quint64 requestCodeCheck(const QString& address) override;
    void setDevnetRunning(bool running) override;
    void setDemoTraffic(bool on, int transfersPerTick) override;
    void injectReorg(int depth, int txMode) override;
    void rollbackBlocks(int blocks) override;
    void setProxyKnobs(int node, const QJsonObject& changes) override;
    void crashIndexer(const QString& point) override;
    void checkInvariants(const QString& reason) override;
    void resetLab() override;
    void repair(quint64 fromBlock, const QString& node) override;
    void setVerifyReceipts(bool on) override;
    void verifyStoredData() override;
    void startForkedReplica() override;
    void stopForkedReplica() override;
    void startSecondWriter(int seconds = 8) override;
    void loseNextAcknowledgement() override;
    void addSource(const QString& address, std::optional<quint64> fromBlock) override;
    void addFactory(const SourceSpec& spec, std::optional<quint64> fromBlock) override;
    void loseNextOutboxAcknowledgement() override;
    void injectDeepReorg() override;
    void raiseReorgLimit(quint64 depth) override;
    quint64 requestReport(const QString& environmentId, bool verify) override;
    bool startLabRun(const forkscope::lab::LabRunSpec& spec) override;
    void cancelLabRun() override;
    bool isLabRunRunning() const override;

    quint64 watchForeignIndexer(const forkscope::foreign::ForeignWatchSpec& spec) override;
    void stopWatchingForeignIndexer(quint64 id) override;
    void requestForeignBlock(quint64 watchId, quint64 block) override;

    // What tst_engine checks: each worker's steps ran once each, never nested.
    struct WorkerStats
    {
        QString name;
        concurrency::LoopThread::Stats stats;
    };
    // Every worker of every session so far (stopped ones folded in), per worker name.
    QList<WorkerStats> workerStats() const;

private:
    struct Session; // the three workers of one start()
    void onLabReady(Session* s, const LabSetup& setup);
    void onIndexing(Session* s, const IndexingSnapshot& snap);
    void onLab(Session* s, const LabSnapshot& snap);
    void onSummary(Session* s, const DbSummary& summary);
    void updateLabReady(Session* s);
    void liftHalt(Session* s);
    void noteStillUnreachable(Session* s);
    void startIndexing(Session* s, const LabSetup& setup);
    void startForeignWatches(Session* s);
    void refuseForeignWatch(quint64 id, const QString& target, const QString& why);
    void publishSoon();
    void publishNow();
    void reap();
    bool labAction(const QString& action);
    void log(const QString& level, const QString& text) { emit logMessage(level, text); }

    EngineConfig m_config;
    EngineStatus m_status;
    std::unique_ptr<Session> m_session;
    std::vector<std::unique_ptr<Session>> m_retiring; // stopping; deleted once joined
    QTimer m_publishTimer;
    LagDamper m_lagDamper;
    QString m_dampedEnvironment; // the environment m_lagDamper's history is of
    int m_starts = 0;            // start() calls so far (EngineStatus::startAttempt)
    quint64 m_nextTicket = 1;
    bool m_resetting = false;
    QMap<QString, concurrency::LoopThread::Stats> m_pastStats; // of joined sessions
    void foldStats(const Session& s);
    std::unique_ptr<LabRunService> m_labRun; // Lab > Run lab scenario..., apart from sessions
};

} // namespace forkscope::engine
