#include "CrashPoints.h"

#include <QByteArray>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace forkscope::indexer {

void crashPoint([[maybe_unused]] const char* name)
{
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
