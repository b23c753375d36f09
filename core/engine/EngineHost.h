#pragma once

#include "EngineConfig.h"
#include "EngineStatus.h"
#include "TablePage.h"
#include "report/CheckpointReport.h"

#include <QObject>
#include <QPointer>

class QThread;

namespace forkscope::engine {

class EngineSession;

// The GUI-side handle on the engine: owns the worker thread and forwards the session's
// snapshots as queued signals. This is the only engine object widgets may touch.
class EngineHost : public QObject
{
    Q_OBJECT
public:
    explicit EngineHost(QObject* parent = nullptr);
    ~EngineHost() override;

    void start(const EngineConfig& config);
    // Stops the session on its thread, then quits and joins the thread. Safe to call twice.
    void shutdown();
    bool isRunning() const;
    void setIndexingPaused(bool paused);
    void requestReorgDiff(qint64 id);
    void requestTablePage(const forkscope::engine::TableRequest& request);
    // Stops (state kept) or starts again the managed anvil; the engine and DB stay open.
    void setDevnetRunning(bool running);
    // Lab controls (see EngineSession); each answers through statusAvailable/logMessage.
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
    // Builds a checkpoint report on the engine's thread; the answer (reportAvailable or
    // reportFailed) carries the returned ticket, so a caller routes it by ticket and drops
    // answers it no longer waits for (hotspot's job tracker).
    quint64 requestReport(const QString& environmentId, bool verify);

signals:
    void statusAvailable(const forkscope::engine::EngineStatus& status);
    void logMessage(const QString& level, const QString& text);
    void reorgDiffAvailable(const forkscope::engine::ReorgDiff& diff);
    void tablePageAvailable(const forkscope::engine::TablePage& page);
    void reportAvailable(quint64 ticket, const forkscope::report::CheckpointReport& report);
    void reportFailed(quint64 ticket, const QString& error);

private:
    // Runs `f` on the session's thread, queued; dropped when no session runs.
    template <typename F> void post(F f);
    QThread* m_thread = nullptr;
    quint64 m_nextTicket = 1;
    QPointer<EngineSession> m_session;
};

} // namespace forkscope::engine
