#pragma once

#include <QMetaObject>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QThread>
#include <functional>
#include <memory>

namespace forkscope::concurrency {

// A QObject worker on a QThread of its own, with the start/stop dance written once:
// moveToThread, the worker's start slot when the thread runs, deleteLater on finished,
// and on stop the worker's own stop slot (on its thread), quit() and wait(). For workers
// driven by their thread's event loop (timers, asynchronous RPC: the health monitor, the
// fault proxies), which never block it; a worker that blocks uses LoopThread instead.
class WorkerThread
{
public:
    explicit WorkerThread(const QString& name) : m_name(name) {}
    ~WorkerThread() { stop(); }

    WorkerThread(const WorkerThread&) = delete;
    WorkerThread& operator=(const WorkerThread&) = delete;

    // Takes ownership of `worker` (deleted on its thread when the thread finishes).
    // `startSlot`, if given, runs on the thread once it is running.
    template <typename W> W* start(W* worker, void (W::*startSlot)() = nullptr)
    {
        m_thread = std::make_unique<QThread>();
        m_thread->setObjectName(m_name);
        worker->moveToThread(m_thread.get());
        QObject::connect(m_thread.get(), &QThread::finished, worker, &QObject::deleteLater);
        if (startSlot)
            QObject::connect(m_thread.get(), &QThread::started, worker, startSlot);
        m_worker = worker;
        m_thread->start();
        return worker;
    }

    // Runs `beforeQuit(worker)` on the worker's thread (and waits for it), then quits the
    // thread's event loop and joins it. Safe to call twice.
    void stop(const std::function<void(QObject*)>& beforeQuit = {})
    {
        if (!m_thread)
            return;
        if (beforeQuit && m_worker && m_thread->isRunning()) {
            QObject* w = m_worker;
            QMetaObject::invokeMethod(
                w, [&beforeQuit, w] { beforeQuit(w); }, Qt::BlockingQueuedConnection);
        }
        m_thread->quit();
        m_thread->wait();
        m_thread.reset();
    }

    bool isRunning() const { return m_thread && m_thread->isRunning(); }
    QThread* thread() const { return m_thread.get(); }

private:
    QString m_name;
    std::unique_ptr<QThread> m_thread;
    QPointer<QObject> m_worker;
};

} // namespace forkscope::concurrency
