#pragma once

#include "DbSummary.h"
#include "TablePage.h"
#include "concurrency/LoopThread.h"
#include "health/NodeHealth.h"
#include "report/CheckpointReport.h"

#include <QObject>
#include <QUrl>
#include <chrono>
#include <memory>

namespace forkscope::engine {

// The app's view of a shared PostgreSQL index: it watches, it never indexes or
// writes. `forkscope index` processes, anywhere, do the indexing; this worker LISTENs for
// their announcements (every checkpoint move and every outbox delivery, at commit) and
// reads a fresh DbSummary when one arrives: live updates without polling, throttled to
// ~10 a second. It answers table pages and reports from the same read-only connection, and
// watches the environment's node with a NodeHealthMonitor of its own. A lost connection is
// reported (never shown as a healthy index) and opened again every 2 s.
// On a LoopThread: the wait for announcements is a step, so commands run between them.
class SharedIndexWatcher : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString url;
        QString environmentId;   // empty: the newest live environment
        QList<QUrl> healthNodes; // empty: the environment's recorded node
        std::chrono::milliseconds healthInterval{1000};
        std::chrono::milliseconds healthTimeout{1000};
    };

    explicit SharedIndexWatcher(Options options, QObject* parent = nullptr);
    ~SharedIndexWatcher() override;

    void start();
    void requestStop();
    bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));
    concurrency::LoopThread::Stats stats() const { return m_thread.stats(); }

    // Commands, from any thread.
    void requestTablePage(const forkscope::engine::TableRequest& request);
    // reorgDiffAvailable, or a logged error; nothing when the environment has no such reorg.
    void requestReorgDiff(qint64 id);
    void requestReport(quint64 ticket, const QString& environmentId, bool verify,
                       std::chrono::milliseconds rpcTimeout);

signals:
    // The database is open and the environment known: its chain and recorded node.
    void attached(const QString& environmentId, quint64 chainId, const QUrl& node);
    void summaryAvailable(const forkscope::engine::DbSummary& summary);
    void healthAvailable(const forkscope::health::HealthSnapshot& snapshot);
    // The database cannot be reached or read (the message says why); retried every 2 s.
    void databaseLost(const QString& message);
    void tablePageAvailable(const forkscope::engine::TablePage& page);
    void reorgDiffAvailable(const forkscope::engine::ReorgDiff& diff);
    void reportAvailable(quint64 ticket, const forkscope::report::CheckpointReport& report);
    void reportFailed(quint64 ticket, const QString& error);
    void logMessage(const QString& level, const QString& text);
    void stopped();

private:
    struct Loop;
    int step();
    bool attach();
    void refresh();
    void lose(const QString& why);

    Options m_options;
    concurrency::LoopThread m_thread;
    std::unique_ptr<Loop> m_loop;
};

} // namespace forkscope::engine
