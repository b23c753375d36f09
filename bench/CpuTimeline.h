#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QMap>

namespace forkscope::bench {

// Where a process's threads, and another process (anvil), spent the machine's cores over
// time: sampled from /proc while the process runs, summed into bins of a fixed width and
// printed as CPU milliseconds per thread name per bin, with what was left idle. A sync's
// pipeline shows in it: the start before the first range, the committing thread's share
// while the fetch runs, and the committing thread alone at the end (bench/README.md's
// history). Thread names are the kernel's (15 characters), so the four
// `forkscope-fetch-N` workers are one column.
//
// Each thread's time on a CPU comes from /proc/.../schedstat (nanoseconds); the bins are as
// sharp as the sampling (every 50 ms in forkscope_bench_index), and a thread that exits loses
// its last partial interval. A thread that exits before its first sample is not seen.
class CpuTimeline
{
public:
    CpuTimeline(qint64 pid, qint64 otherPid, QByteArray otherName, int binMs);

    // Reads every thread's CPU so far; `elapsedMs` is the time since the process started.
    void sample(qint64 elapsedMs);
    // One line per bin: its start, CPU ms per column, and the idle ms of `cores` cores.
    void print(int cores) const;

private:
    qint64 m_pid;
    qint64 m_otherPid;
    QByteArray m_otherName;
    int m_binMs;
    qint64 m_lastMs = 0;
    QHash<qint64, qint64> m_lastNs; // thread id -> CPU ns at the last sample
    qint64 m_otherLastNs = -1;
    QMap<qint64, QHash<QByteArray, qint64>> m_bins; // bin -> name -> CPU ns
};

} // namespace forkscope::bench
