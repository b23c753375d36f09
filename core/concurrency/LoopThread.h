#pragma once

#include "StopToken.h"

#include <QMutex>
#include <QString>
#include <QWaitCondition>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>

class QThread;

namespace forkscope::concurrency {

// A worker thread that runs one step at a time and takes commands only between steps.
//
// The rule: no thread that receives commands ever runs them inside a nested
// event loop. Blocking RPC spins a nested QEventLoop to wait for its reply, and a queued
// signal or invokeMethod to an object on that thread would run inside it, with the step
// still on the stack (a lab reset destroying the indexer under its own step). So a
// LoopThread's commands never travel as events: post() puts them in a queue that the loop
// drains between steps, and nothing on the thread is a receiver of queued calls. A nested
// loop there only ever serves the network. Results go out as signals carrying values, to
// be received elsewhere; a caller that needs to drop stale answers tags requests with a
// ticket (KDAB hotspot's job tracker).
//
// The loop: onStart, then until stopped: run the queued commands, run `step` (it returns
// how long to wait before the next step: 0 at once, a positive delay, or -1 to wait for a
// command), then wait for that long, a command, or the stop request. onStop runs last, on
// the thread. The stop token is set by requestStop(); RPC clients created on the thread
// should take it (JsonRpcClient::setStopToken) so that a step blocked on the network
// returns at once.
class LoopThread
{
public:
    explicit LoopThread(const QString& name);
    ~LoopThread(); // requestStop() and wait()

    LoopThread(const LoopThread&) = delete;
    LoopThread& operator=(const LoopThread&) = delete;

    void start(std::function<void()> onStart, std::function<int()> step,
               std::function<void()> onStop);
    // Thread-safe; `command` runs on the loop's thread before its next step. Dropped after
    // the stop request.
    void post(std::function<void()> command);
    // Wakes the loop for a step now (e.g. after resuming).
    void wake();
    // Non-blocking.
    void requestStop();
    // Joins; true when the thread has finished within `timeout`.
    bool wait(std::chrono::milliseconds timeout = std::chrono::milliseconds(30000));
    bool isRunning() const;
    const StopTokenPtr& stopToken() const { return m_stop; }
    // True on the loop's own thread.
    bool isCurrentThread() const;

    // What tst_engine checks: every step ran to completion, never inside another one.
    struct Stats
    {
        qint64 stepsStarted = 0;
        qint64 stepsCompleted = 0;
        qint64 commandsRun = 0;
        int maxDepth = 0; // 1 when steps never nest
    };
    Stats stats() const;

private:
    void run();
    void enter(bool step);
    void leave(bool step);

    QString m_name;
    StopTokenPtr m_stop = std::make_shared<StopToken>();
    std::function<void()> m_onStart;
    std::function<int()> m_step;
    std::function<void()> m_onStop;
    mutable QMutex m_mutex;
    QWaitCondition m_wake;
    std::deque<std::function<void()>> m_commands;
    bool m_stepNow = false;
    Stats m_stats;   // guarded by m_mutex
    int m_depth = 0; // steps and commands on the stack (loop thread only)
    std::unique_ptr<QThread> m_thread;
};

} // namespace forkscope::concurrency
