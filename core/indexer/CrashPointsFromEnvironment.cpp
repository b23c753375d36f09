// The FORKSCOPE_CRASH_AT hook (see CrashPoints.h). It lives in an object library of its
// own, linked only into the build tree's forkscope when FORKSCOPE_TEST_HOOKS is ON, so a
// stray variable in a user's environment can never kill an installed or packaged binary:
// the code and the variable's name are not in it.
#include "CrashPoints.h"

#include <QByteArray>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace forkscope::indexer {

namespace {

void killAtArmedPoint(const char* name)
{
    static const QByteArray armed = qgetenv("FORKSCOPE_CRASH_AT");
    if (armed.isEmpty() || armed != name)
        return;
    static std::atomic<int> remaining = qEnvironmentVariableIntValue("FORKSCOPE_CRASH_AFTER");
    if (remaining.fetch_sub(1) > 0)
        return;
    std::fprintf(stderr, "forkscope: crash point %s reached, killing the process\n", name);
    std::fflush(stderr);
    ::kill(::getpid(), SIGKILL);
}

// Linking this object is what arms the environment: it runs before main().
const bool g_installed = (setProcessCrashHook(&killAtArmedPoint), true);

} // namespace

} // namespace forkscope::indexer
