#include "MallocPolicy.h"

#include <QtGlobal>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace forkscope::app {

void applyMallocPolicy()
{
#if defined(__GLIBC__)
    // glibc raises its mmap threshold to the largest block freed so far. Once one
    // eth_getLogs reply body (about 5 MiB for 5,000 logs) is freed, every later one comes
    // from the malloc arenas instead, and each fetch thread's arena keeps its high-water
    // mark: 30-50 MiB of a backfill's peak RSS held by memory already freed. A fixed
    // threshold gives each reply its own mapping, returned to the system when freed; smaller
    // blocks keep the arenas' speed.
    if (!qEnvironmentVariableIsSet("MALLOC_MMAP_THRESHOLD_"))
        mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
#endif
}

} // namespace forkscope::app
