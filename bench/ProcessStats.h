#pragma once

#include <QHash>
#include <QtGlobal>

namespace forkscope::bench {

// CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat; with
// `withReapedChildren`, also what its children that it has waited for used (a PostgreSQL
// postmaster's backends that have exited). 0 when the process is gone.
double processCpuSeconds(qint64 pid, bool withReapedChildren = false);

// The CPU a process's children use while something runs (a PostgreSQL server's backends
// and background workers during a sync), sampled: each child's CPU when the sampling
// started (0 for one started since) and when last seen. A backend's CPU reaches its
// parent's counters only once reaped, which may be after the sync; a child that exits
// between two samples loses what it used since the last one.
class ChildrenCpu
{
public:
    explicit ChildrenCpu(qint64 parent);
    void sample();
    double seconds() const;

private:
    QHash<qint64, double> children() const;
    qint64 m_parent;
    QHash<qint64, double> m_first, m_last;
};

// CPU seconds (user + system) of this process's children that it has waited for
// (RUSAGE_CHILDREN): the difference across one child's run is that child's CPU.
double reapedChildrenCpuSeconds();

// The process's peak resident set so far (VmHWM), in KiB; 0 when it is gone. Sampled while
// it runs: the last sample before it exits is its peak, to within one sampling interval.
qint64 peakRssKiB(qint64 pid);

} // namespace forkscope::bench
