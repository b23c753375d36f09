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

void AlteredRows::add(std::uint64_t logIndex, const QStringList& differing, const QString& detail)
{
    if (count == 0)
        firstDetail = detail;
    ++count;
    if (indexes.size() < kIndexesNamed)
        indexes.append(logIndex);
    for (const QString& f : differing)
        if (!fields.contains(f))
            fields.append(f);
}

QString AuditHole::describe() const
{
    QStringList what;
    if (blockRowMissing)
        what << QStringLiteral("no blocks row");
    if (!alteredBlockFields.isEmpty())
        what << QStringLiteral("blocks row altered: %1 not the node's header's%2")
                    .arg(alteredBlockFields.join(QStringLiteral(", ")),
                         blockHashEdited
                             ? QStringLiteral(" (the stored chain above it links to the "
                                              "node's block %1: this row was edited, the chain "
                                              "did not reorg)")
                                   .arg(block)
                             : QString());
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
    if (!alteredLogs.isEmpty())
        what << QStringLiteral("%1 altered%2: %3 not the node's")
                    .arg(plural(alteredLogs.count, "stored log", "stored logs"),
                         indexes(alteredLogs.indexes, alteredLogs.count),
                         alteredLogs.fields.join(QStringLiteral(", ")));
    if (!alteredTransfers.isEmpty())
        what << QStringLiteral("%1 altered%2: %3 not what the node's log says%4")
                    .arg(plural(alteredTransfers.count, "transfer", "transfers"),
                         indexes(alteredTransfers.indexes, alteredTransfers.count),
                         alteredTransfers.fields.join(QStringLiteral(", ")),
                         alteredTransfers.firstDetail.isEmpty()
                             ? QString()
                             : QStringLiteral(" (") + alteredTransfers.firstDetail +
                                   QLatin1Char(')'));
    if (!alteredDecodings.isEmpty())
        what << QStringLiteral("%1 altered%2: %3 not the node's log decoded with the ABI")
                    .arg(plural(alteredDecodings.count, "decoded log", "decoded logs"),
                         indexes(alteredDecodings.indexes, alteredDecodings.count),
                         alteredDecodings.fields.join(QStringLiteral(", ")));
    if (!missingChildren.isEmpty())
        what << QStringLiteral("missing %1 of the factory: %2")
                    .arg(plural(missingChildren.size(), "child", "children"),
                         missingChildren.join(QStringLiteral(", ")));
    if (!extraChildren.isEmpty())
        what << QStringLiteral("%1 the node's factory did not create here: %2")
                    .arg(plural(extraChildren.size(), "stored child", "stored children"),
                         extraChildren.join(QStringLiteral(", ")));
    if (logsOfAnotherBlock > 0)
        what << QStringLiteral("%1 with another block hash than the block's")
                    .arg(plural(logsOfAnotherBlock, "stored log", "stored logs"));
    QString line = QStringLiteral("block %1: %2").arg(block).arg(what.join(QStringLiteral(", ")));
    if (rangeAnswerShort)
        line += QStringLiteral(" (the node's eth_getLogs range answer omitted them too; the "
                               "block's proven logs have them)");
    return line;
}

bool AuditHole::isEmpty() const
{
    return !blockRowMissing && alteredBlockFields.isEmpty() && missingLogs == 0 && extraLogs == 0 &&
           missingTransfers == 0 && extraTransfers == 0 && logsOutsideBloom == 0 &&
           logsOfAnotherBlock == 0 && alteredLogs.isEmpty() && alteredTransfers.isEmpty() &&
           alteredDecodings.isEmpty() && missingChildren.isEmpty() && extraChildren.isEmpty();
}

QString BalanceFinding::describe() const
{
    const QString who = QStringLiteral("token %1 holder %2: ").arg(contract, holder);
    switch (kind) {
    case Kind::Missing:
        return who + QStringLiteral("no token_balances row, its stored Transfers sum to %1")
                         .arg(expected);
    case Kind::Extra:
        return who + QStringLiteral("token_balances row (balance %1) that no stored Transfer "
                                    "names")
                         .arg(stored);
    case Kind::Differs:
        return who + QStringLiteral("balance %1 stored, its stored Transfers sum to %2")
                         .arg(stored, expected);
    case Kind::SidesDiffer:
        return who + QStringLiteral("transfer_sides %1 stored, its stored Transfers have %2 "
                                    "sides")
                         .arg(storedSides)
                         .arg(expectedSides);
    case Kind::NotBalanceOf:
        return who + QStringLiteral("balance %1 stored (the sum of its stored Transfers), the "
                                    "token's balanceOf at the checkpoint is %2")
                         .arg(stored, expected);
    case Kind::Unsummable:
        return who + QStringLiteral("a stored Transfer of it has a value that is not a decimal "
                                    "amount; its balance %1 cannot be checked")
                         .arg(stored.isEmpty() ? QStringLiteral("(no row)") : stored);
    }
    return who;
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

void AuditResult::addBalanceFinding(const BalanceFinding& finding)
{
    ++balanceFindingCount;
    if (balanceFindings.size() < kMaxBalanceFindingsKept)
        balanceFindings.append(finding);
}

} // namespace forkscope::audit
