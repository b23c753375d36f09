#pragma once

#include "lab/run/LabRunProgress.h"
#include "lab/run/LabRunResult.h"
#include "lab/run/LabRunSpec.h"

#include <QObject>
#include <memory>

namespace forkscope::concurrency {
class LoopThread;
}

namespace forkscope::engine {

// `forkscope lab run` for the app (Lab > Run lab scenario...): the same lab::LabRun, one at
// a time, run as a command on a LoopThread of its own. It blocks that thread only: its
// waits are on the node, the database and the indexer's process, and the cancel request
// reaches it as the thread's stop token, which it checks between steps and while it waits.
// Its progress and result leave as values by signal, for the GUI thread.
class LabRunService : public QObject
{
    Q_OBJECT
public:
    explicit LabRunService(QObject* parent = nullptr);
    ~LabRunService() override; // cancels a run and joins it (everything it started stops)

    // False, and nothing started, while a run goes on.
    bool start(const lab::LabRunSpec& spec);
    // The run stops at its next check, stops everything it started, and finished() follows.
    void cancel();
    bool isRunning() const { return m_running; }

signals:
    void progress(const forkscope::lab::LabRunProgress& progress);
    void finished(const forkscope::lab::LabRunResult& result);

private:
    void join();

    std::unique_ptr<concurrency::LoopThread> m_thread;
    bool m_running = false;
};

} // namespace forkscope::engine
