#include "CrashPoints.h"

#include <QMutex>
#include <QStringList>
#include <atomic>

namespace forkscope::indexer {

namespace {
QMutex g_armedMutex;
QString g_armed;                     // guarded by g_armedMutex
std::atomic<bool> g_anyArmed{false}; // the hot path checks this only
// Constant-initialised, so a hook set from another file's static initialiser sticks.
std::atomic<ProcessCrashHook> g_processHook{nullptr};
} // namespace

void setProcessCrashHook(ProcessCrashHook hook)
{
    g_processHook = hook;
}

void armInProcessCrash(const QString& point)
{
    QMutexLocker lock(&g_armedMutex);
    g_armed = point;
    g_anyArmed = !point.isEmpty();
}

QString armedInProcessCrash()
{
    QMutexLocker lock(&g_armedMutex);
    return g_armed;
}

QStringList crashPointNames()
{
    return {QStringLiteral("before-commit"), QStringLiteral("after-commit"),
            QStringLiteral("mid-rollback")};
}

void crashPoint(const char* name)
{
    if (g_anyArmed.load(std::memory_order_relaxed)) {
        QMutexLocker lock(&g_armedMutex);
        if (g_armed == QLatin1String(name)) {
            g_armed.clear(); // once
            g_anyArmed = false;
            throw SimulatedCrash(QString::fromLatin1(name));
        }
    }
    if (const ProcessCrashHook hook = g_processHook.load(std::memory_order_relaxed))
        hook(name);
}

} // namespace forkscope::indexer
