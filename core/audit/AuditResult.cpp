#include "AuditResult.h"

#include <QStringList>

namespace forkscope::audit {

namespace {
QString plural(qint64 n, const char* one, const char* many)
{
    return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

QString indexes(const QList<std::uint64_t>& list, qint64 total)
{
    QStringList parts;
    for (std::uint64_t i : list)
        parts << QString::number(i);
    if (total > list.size())
        parts << QStringLiteral("...");
    return QStringLiteral(" (log index %1)").arg(parts.join(QStringLiteral(", ")));
}
} // namespace

QString AuditHole::describe() const
{
    QStringList what;
    if (blockRowMissing)
        what << QStringLiteral("no blocks row");
    if (missingLogs > 0)
        what << QStringLiteral("missing %1%2")
                    .arg(plural(missingLogs, "log", "logs"),
                         indexes(missingLogIndexes, missingLogs));
    if (extraLogs > 0)
        what << QStringLiteral("extra %1 the node does not have%2")
                    .arg(plural(extraLogs, "log", "logs"), indexes(extraLogIndexes, extraLogs));
    if (missingTransfers > 0)
        what << QStringLiteral("missing %1").arg(plural(missingTransfers, "transfer", "transfers"));
    if (extraTransfers > 0)
        what << QStringLiteral("extra %1 without a Transfer log on the node")
                    .arg(plural(extraTransfers, "transfer", "transfers"));
    if (logsOutsideBloom > 0)
        what << QStringLiteral("%1 outside the block's logsBloom (corrupt or tampered rows)")
                    .arg(plural(logsOutsideBloom, "stored log", "stored logs"));
    if (alteredLogs > 0)
        what << QStringLiteral("%1 altered%2: %3 not the node's")
                    .arg(plural(alteredLogs, "stored log", "stored logs"),
                         indexes(alteredLogIndexes, alteredLogs),
                         alteredFields.join(QStringLiteral(", ")));
    if (logsOfAnotherBlock > 0)
        what << QStringLiteral("%1 with another block hash than the block's")
                    .arg(plural(logsOfAnotherBlock, "stored log", "stored logs"));
    QString line = QStringLiteral("block %1: %2").arg(block).arg(what.join(QStringLiteral(", ")));
    if (rangeAnswerShort)
        line += QStringLiteral(" (the node's eth_getLogs range answer omitted them too; the "
                               "block's proven logs have them)");
    return line;
}

std::optional<std::uint64_t> AuditResult::firstHole() const
{
    if (holes.isEmpty())
        return std::nullopt;
    return holes.first().block;
}

void AuditResult::addHole(const AuditHole& hole)
{
    ++holeCount;
    if (holes.size() < kMaxHolesKept)
        holes.append(hole);
}

} // namespace forkscope::audit
