#pragma once

#include <QtGlobal>

namespace forkscope::bench {

// CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; with
// `withReapedChildren`, also what its children that it has waited for used (a PostgreSQL
// postmaster's backends that have exited). 0 when the process is gone.
double processCpuSeconds(qint64 pid, bool withReapedChildren = false);

// The process's peak resident set so far (VmHWM), in KiB; 0 when it is gone. Sampled while
// it runs: the last sample before it exits is its peak, to within one sampling interval.
qint64 peakRssKiB(qint64 pid);

} // namespace forkscope::bench
