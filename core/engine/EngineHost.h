#pragma once

#include "EngineConfig.h"
#include "EngineStatus.h"
#include "TablePage.h"
#include "concurrency/LoopThread.h"
#include "report/CheckpointReport.h"

#include <QMap>
#include <QObject>
#include <QTimer>
#include <memory>
#include <vector>

namespace forkscope::engine {

class IndexingService;
class LabController;
class ReadService;
struct IndexingSnapshot;
struct LabSnapshot;
struct LabSetup;
struct DbSummary;

// The GUI-side handle on the engine, and the only engine object widgets may touch: a thin
// coordinator on the GUI thread. The work runs on three workers of its own, each a
// LoopThread whose commands run between its steps only (never in a nested event loop):
//   IndexingService  the indexer, crash restart, node health, outbox, safe height;
//   LabController    the managed anvil, fault proxies, demo traffic, lab actions, verdicts;
//   ReadService      tables, diffs, reports and the summary, on a read-only connection.
// Their snapshots arrive here as values by queued signal; the host merges them into one
// EngineStatus and hands it on, at most ~10 times a second (Bitcoin Core's ClientModel:
// the model polls on its own thread, the GUI only renders). Every method returns at once:
// stop, restart and quit never wait for the node.
class EngineHost : public QObject
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
    bool isRunning() const;
    // For tests and the command line: joins what shutdown() stopped.
    bool waitForStopped(int timeoutMs = 30000);

    void setIndexingPaused(bool paused);
    void requestReorgDiff(qint64 id);
    void requestTablePage(const forkscope::engine::TableRequest& request);
    // Stops (state kept) or starts again the managed anvil; the engine and DB stay open.
    void setDevnetRunning(bool running);
    // Lab controls; each answers through statusAvailable/logMessage.
    void setDemoTraffic(bool on, int transfersPerTick);
    void injectReorg(int depth, int txMode);
    void rollbackBlocks(int blocks);
    void setProxyKnobs(int node, const QJsonObject& changes);
    void crashIndexer(const QString& point);
    void checkInvariants(const QString& reason);
    void resetLab();
    void repair(quint64 fromBlock, const QString& node);
    void setVerifyReceipts(bool on);
    void verifyStoredData();
    // The lab scenarios (Lab menu): node 2 behind a forked replica; a second indexer on the
    // live environment; the next batch's acknowledgement lost; a reorg deeper than the
    // limit, and the two ways on from it (raise the limit and continue, or resetLab()).
    void startForkedReplica();
    void stopForkedReplica();
    void startSecondWriter(int seconds = 8);
    void loseNextAcknowledgement();
    void injectDeepReorg();
    void raiseReorgLimit(quint64 depth);
    // Builds a checkpoint report on the read worker; the answer (reportAvailable or
    // reportFailed) carries the returned ticket, so a caller routes it by ticket and drops
    // answers it no longer waits for (hotspot's job tracker).
    quint64 requestReport(const QString& environmentId, bool verify);

    // What tst_engine checks: each worker's steps ran once each, never nested.
    struct WorkerStats
    {
        QString name;
        concurrency::LoopThread::Stats stats;
    };
    // Every worker of every session so far (stopped ones folded in), per worker name.
    QList<WorkerStats> workerStats() const;

signals:
    void statusAvailable(const forkscope::engine::EngineStatus& status);
    void logMessage(const QString& level, const QString& text);
    void reorgDiffAvailable(const forkscope::engine::ReorgDiff& diff);
    void tablePageAvailable(const forkscope::engine::TablePage& page);
    void reportAvailable(quint64 ticket, const forkscope::report::CheckpointReport& report);
    void reportFailed(quint64 ticket, const QString& error);
    void stopped();

private:
    struct Session; // the three workers of one start()
    void onLabReady(Session* s, const LabSetup& setup);
    void onIndexing(Session* s, const IndexingSnapshot& snap);
    void onLab(Session* s, const LabSnapshot& snap);
    void onSummary(Session* s, const DbSummary& summary);
    void startIndexing(Session* s, const LabSetup& setup);
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
    quint64 m_nextTicket = 1;
    bool m_resetting = false;
    QMap<QString, concurrency::LoopThread::Stats> m_pastStats; // of joined sessions
    void foldStats(const Session& s);
};

} // namespace forkscope::engine
