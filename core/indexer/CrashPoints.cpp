#include "CrashPoints.h"

#include <QByteArray>
#include <QMutex>
#include <QStringList>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace forkscope::indexer {

namespace {
QMutex g_armedMutex;
QString g_armed;                     // guarded by g_armedMutex
std::atomic<bool> g_anyArmed{false}; // the hot path checks this only
} // namespace

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
#ifdef FORKSCOPE_TEST_HOOKS
    static const QByteArray armed = qgetenv("FORKSCOPE_CRASH_AT");
    if (armed.isEmpty() || armed != name)
        return;
    static std::atomic<int> remaining = qEnvironmentVariableIntValue("FORKSCOPE_CRASH_AFTER");
    if (remaining.fetch_sub(1) > 0)
        return;
    std::fprintf(stderr, "forkscope: crash point %s reached, killing the process\n", name);
    std::fflush(stderr);
    ::kill(::getpid(), SIGKILL);
#endif
}

} // namespace forkscope::indexer
