#include "CpuTimeline.h"

#include <QDir>
#include <QFile>
#include <algorithm>
#include <cstdio>

namespace forkscope::bench {

namespace {

struct ThreadCpu
{
    QByteArray name;
    qint64 ns = -1; // -1: unreadable (the thread is gone)
};

// A task's time on a CPU in nanoseconds (the first field of schedstat: exact, where stat's
// utime and stime are in 10 ms clock ticks) and its name.
ThreadCpu readTask(const QString& dir)
{
    QFile comm(dir + QStringLiteral("/comm"));
    QFile schedstat(dir + QStringLiteral("/schedstat"));
    if (!comm.open(QIODevice::ReadOnly) || !schedstat.open(QIODevice::ReadOnly))
        return {};
    bool ok = false;
    const qint64 ns = schedstat.readAll().split(' ').value(0).toLongLong(&ok);
    if (!ok)
        return {};
    return {comm.readAll().trimmed(), ns};
}

} // namespace

CpuTimeline::CpuTimeline(qint64 pid, qint64 otherPid, QByteArray otherName, int binMs)
    : m_pid(pid), m_otherPid(otherPid), m_otherName(std::move(otherName)),
      m_binMs(std::max(1, binMs))
{
}

void CpuTimeline::sample(qint64 elapsedMs)
{
    // The interval since the last sample is booked to the bin of its middle.
    QHash<QByteArray, qint64>& bin = m_bins[(m_lastMs + elapsedMs) / 2 / m_binMs];
    const QString tasks = QStringLiteral("/proc/%1/task").arg(m_pid);
    const QStringList tids = QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& tid : tids) {
        const ThreadCpu t = readTask(tasks + QLatin1Char('/') + tid);
        if (t.ns < 0)
            continue;
        qint64& last = m_lastNs[tid.toLongLong()]; // 0 for a thread new since the last
        bin[t.name] += t.ns - last;
        last = t.ns;
    }
    // The other process as a whole: the sum over its threads.
    const QString otherTasks = QStringLiteral("/proc/%1/task").arg(m_otherPid);
    qint64 otherNs = 0;
    for (const QString& tid : QDir(otherTasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        otherNs += std::max<qint64>(0, readTask(otherTasks + QLatin1Char('/') + tid).ns);
    if (m_otherLastNs >= 0)
        bin[m_otherName] += otherNs - m_otherLastNs;
    m_otherLastNs = otherNs;
    m_lastMs = elapsedMs;
}

void CpuTimeline::print(int cores) const
{
    constexpr double msPerNs = 1e-6;
    // The five busiest names over the whole run get a column each; the rest are "other".
    QHash<QByteArray, qint64> totals;
    for (const auto& bin : m_bins)
        for (auto it = bin.cbegin(); it != bin.cend(); ++it)
            totals[it.key()] += it.value();
    QList<QByteArray> names = totals.keys();
    std::sort(names.begin(), names.end(), [&totals](const QByteArray& a, const QByteArray& b) {
        return totals.value(a) > totals.value(b);
    });
    const qsizetype columns = std::min<qsizetype>(names.size(), 5);
    std::printf("CPU timeline (ms of CPU per %d ms bin; %d cores):\n%8s", m_binMs, cores, "t_ms");
    for (qsizetype c = 0; c < columns; ++c)
        std::printf(" %15s", names[c].constData());
    std::printf(" %15s %6s\n", "other", "idle");
    for (auto it = m_bins.cbegin(); it != m_bins.cend(); ++it) {
        qint64 shown = 0, total = 0; // ns
        std::printf("%8lld", it.key() * m_binMs);
        for (qsizetype c = 0; c < columns; ++c) {
            const qint64 ns = it.value().value(names[c]);
            shown += ns;
            std::printf(" %15.0f", double(ns) * msPerNs);
        }
        for (const qint64 ns : it.value())
            total += ns;
        // The last bin ends at the last sample, not at its full width.
        const qint64 binEnd = std::min<qint64>((it.key() + 1) * m_binMs, m_lastMs);
        const double width = double(binEnd - it.key() * m_binMs) * cores;
        std::printf(" %15.0f %6.0f\n", double(total - shown) * msPerNs,
                    std::max(0.0, width - double(total) * msPerNs));
    }
}

} // namespace forkscope::bench
