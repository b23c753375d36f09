#include "LogDiff.h"

#include <QHash>
#include <QSet>
#include <algorithm>

namespace forkscope::proof {

namespace {
QStringList differingFields(const chain::LogEntry& a, const chain::LogEntry& b)
{
    QStringList f;
    if (a.address != b.address)
        f << QStringLiteral("address");
    if (a.topics != b.topics)
        f << QStringLiteral("topics");
    if (a.data != b.data)
        f << QStringLiteral("data");
    if (a.blockHash != b.blockHash)
        f << QStringLiteral("blockHash");
    if (a.blockNumber != b.blockNumber)
        f << QStringLiteral("blockNumber");
    if (a.transactionIndex != b.transactionIndex)
        f << QStringLiteral("transactionIndex");
    if (a.transactionHash != b.transactionHash)
        f << QStringLiteral("transactionHash");
    return f;
}

QString named(const chain::LogEntry& log)
{
    return QStringLiteral("logIndex %1 of %2 in tx %3")
        .arg(log.logIndex)
        .arg(log.address.toHex())
        .arg(log.transactionIndex);
}

template <typename T, typename F>
QString section(const QList<T>& items, const char* kind, int maxNamed, F&& name)
{
    QStringList names;
    for (qsizetype i = 0; i < items.size() && i < maxNamed; ++i)
        names << name(items[i]);
    if (items.size() > maxNamed)
        names << QStringLiteral("%1 more").arg(items.size() - maxNamed);
    return QStringLiteral("%1 %2 (%3)")
        .arg(items.size())
        .arg(QLatin1String(kind), names.join(QStringLiteral(", ")));
}
} // namespace

QString LogDiff::describe(int maxNamed) const
{
    QStringList parts;
    if (!missing.isEmpty())
        parts << section(missing, "missing", maxNamed, named);
    if (!extra.isEmpty())
        parts << section(extra, "extra", maxNamed, named);
    if (!altered.isEmpty())
        parts << section(altered, "altered", maxNamed, [](const Altered& a) {
            return QStringLiteral("logIndex %1: %2")
                .arg(a.proven.logIndex)
                .arg(a.fields.join(QStringLiteral(", ")));
        });
    return parts.join(QStringLiteral("; "));
}

LogDiff diffLogs(const QList<chain::LogEntry>& proven, const QList<chain::LogEntry>& claimed)
{
    QHash<std::uint64_t, qsizetype> byIndex; // claimed logIndex -> its first position
    LogDiff d;
    for (qsizetype i = 0; i < claimed.size(); ++i) {
        if (byIndex.contains(claimed[i].logIndex))
            d.extra.append(claimed[i]); // the same position claimed twice
        else
            byIndex.insert(claimed[i].logIndex, i);
    }
    QSet<std::uint64_t> provenIndices;
    for (const chain::LogEntry& p : proven) {
        provenIndices.insert(p.logIndex);
        const auto it = byIndex.constFind(p.logIndex);
        if (it == byIndex.constEnd()) {
            d.missing.append(p);
            continue;
        }
        const chain::LogEntry& c = claimed[*it];
        const QStringList fields = differingFields(p, c);
        if (!fields.isEmpty())
            d.altered.append({p, c, fields});
    }
    for (auto it = byIndex.constBegin(); it != byIndex.constEnd(); ++it)
        if (!provenIndices.contains(it.key()))
            d.extra.append(claimed[it.value()]);
    const auto byLogIndex = [](const chain::LogEntry& a, const chain::LogEntry& b) {
        return a.logIndex < b.logIndex;
    };
    std::stable_sort(d.missing.begin(), d.missing.end(), byLogIndex);
    std::stable_sort(d.extra.begin(), d.extra.end(), byLogIndex);
    std::stable_sort(d.altered.begin(), d.altered.end(),
                     [](const LogDiff::Altered& a, const LogDiff::Altered& b) {
                         return a.proven.logIndex < b.proven.logIndex;
                     });
    return d;
}

QList<chain::LogEntry> selectLogs(const QList<chain::LogEntry>& logs,
                                  const QList<chain::Address>& addresses,
                                  const QList<QList<chain::Hash32>>& topics)
{
    QList<chain::LogEntry> out;
    for (const chain::LogEntry& log : logs) {
        if (!addresses.isEmpty() && !addresses.contains(log.address))
            continue;
        if (topics.size() > log.topics.size())
            continue;
        bool match = true;
        for (qsizetype i = 0; i < topics.size() && match; ++i)
            match = topics[i].isEmpty() || topics[i].contains(log.topics[i]);
        if (match)
            out.append(log);
    }
    return out;
}

} // namespace forkscope::proof
