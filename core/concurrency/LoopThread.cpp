#include "LoopThread.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>
#include <algorithm>

namespace forkscope::concurrency {

LoopThread::LoopThread(const QString& name) : m_name(name) {}

LoopThread::~LoopThread()
{
    requestStop();
    wait();
}

void LoopThread::start(std::function<void()> onStart, std::function<int()> step,
                       std::function<void()> onStop)
{
    m_onStart = std::move(onStart);
    m_step = std::move(step);
    m_onStop = std::move(onStop);
    m_thread.reset(QThread::create([this] { run(); }));
    m_thread->setObjectName(m_name);
    m_thread->start();
}

void LoopThread::post(std::function<void()> command)
{
    QMutexLocker lock(&m_mutex);
    if (m_stop->stopRequested())
        return;
    m_commands.push_back(std::move(command));
    m_wake.wakeAll();
}

void LoopThread::wake()
{
    QMutexLocker lock(&m_mutex);
    m_stepNow = true;
    m_wake.wakeAll();
}

void LoopThread::requestStop()
{
    QMutexLocker lock(&m_mutex);
    m_stop->requestStop();
    m_wake.wakeAll();
}

bool LoopThread::wait(std::chrono::milliseconds timeout)
{
    if (!m_thread)
        return true;
    return m_thread->wait(QDeadlineTimer(timeout));
}

bool LoopThread::isRunning() const
{
    return m_thread && m_thread->isRunning();
}

bool LoopThread::isCurrentThread() const
{
    return m_thread && QThread::currentThread() == m_thread.get();
}

LoopThread::Stats LoopThread::stats() const
{
    QMutexLocker lock(&m_mutex);
    return m_stats;
}

void LoopThread::enter(bool step)
{
    QMutexLocker lock(&m_mutex);
    ++m_depth;
    if (step)
        ++m_stats.stepsStarted;
    m_stats.maxDepth = std::max(m_stats.maxDepth, m_depth);
}

void LoopThread::leave(bool step)
{
    QMutexLocker lock(&m_mutex);
    --m_depth;
    if (step)
        ++m_stats.stepsCompleted;
    else
        ++m_stats.commandsRun;
}

void LoopThread::run()
{
    if (m_onStart)
        m_onStart();
    int next = 0;
    while (!m_stop->stopRequested()) {
        // Commands, between steps only.
        std::deque<std::function<void()>> commands;
        {
            QMutexLocker lock(&m_mutex);
            commands.swap(m_commands);
            m_stepNow = false;
        }
        for (auto& c : commands) {
            if (m_stop->stopRequested())
                break;
            enter(false);
            c();
            leave(false);
        }
        if (m_stop->stopRequested())
            break;
        if ((!commands.empty() || next >= 0) && m_step) {
            enter(true);
            next = m_step();
            leave(true);
        } else if (!m_step) {
            next = -1;
        }
        // Replies that arrived late, deferred deletes: this thread's own events, never a
        // command (none is ever posted to it as an event).
        QCoreApplication::processEvents();
        QMutexLocker lock(&m_mutex);
        if (!m_commands.empty() || m_stepNow || m_stop->stopRequested()) {
            next = 0;
            continue;
        }
        if (next == 0)
            continue;
        const bool woken =
            next < 0 ? m_wake.wait(&m_mutex) : m_wake.wait(&m_mutex, QDeadlineTimer(next));
        if (!woken)
            next = 0; // the delay passed: step again
        else if (m_stepNow)
            next = 0;
    }
    if (m_onStop)
        m_onStop();
}

} // namespace forkscope::concurrency
