#include "ProcessStats.h"

#include <QFile>
#include <QList>
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
