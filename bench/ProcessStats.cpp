#include "ProcessStats.h"

#include <QDir>
#include <QFile>
#include <QList>
#include <sys/resource.h>
#include <unistd.h>

namespace forkscope::bench {

double processCpuSeconds(qint64 pid, bool withReapedChildren)
{
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray stat = f.readAll();
    // Fields after the parenthesised command name: utime, stime, cutime and cstime are
    // fields 14 to 17 of the whole line.
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.size() < 15)
        return 0;
    qint64 ticks = fields[11].toLongLong() + fields[12].toLongLong();
    if (withReapedChildren)
        ticks += fields[13].toLongLong() + fields[14].toLongLong();
    return double(ticks) / double(sysconf(_SC_CLK_TCK));
}

double reapedChildrenCpuSeconds()
{
    rusage ru{};
    getrusage(RUSAGE_CHILDREN, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

ChildrenCpu::ChildrenCpu(qint64 parent) : m_parent(parent), m_first(children()) {}

QHash<qint64, double> ChildrenCpu::children() const
{
    QHash<qint64, double> out;
    const QByteArray parent = QByteArray::number(m_parent);
    for (const QString& entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool isPid = false;
        const qint64 child = entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        QFile f(QStringLiteral("/proc/%1/stat").arg(child));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray stat = f.readAll();
        // The parent's pid is the second field after the command name.
        if (stat.mid(stat.lastIndexOf(')') + 2).split(' ').value(1) == parent)
            out.insert(child, processCpuSeconds(child));
    }
    return out;
}

void ChildrenCpu::sample()
{
    const QHash<qint64, double> now = children();
    for (auto it = now.cbegin(); it != now.cend(); ++it)
        m_last.insert(it.key(), it.value());
}

double ChildrenCpu::seconds() const
{
    double total = 0;
    for (auto it = m_last.cbegin(); it != m_last.cend(); ++it)
        total += it.value() - m_first.value(it.key(), 0.0);
    return total;
}

qint64 peakRssKiB(qint64 pid)
{
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    return 0;
}

} // namespace forkscope::bench
