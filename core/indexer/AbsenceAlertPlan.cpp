#include "AbsenceAlertPlan.h"

#include <QStringList>
#include <algorithm>

namespace forkscope::indexer {

namespace {

bool isAbsence(const CompletenessAlert& a)
{
    return a.kind == QLatin1String("absence");
}

} // namespace

AbsenceAlertPlan planAbsenceAlerts(std::pair<std::uint64_t, std::uint64_t> window,
                                   const QList<std::uint64_t>& absentBlocks,
                                   const QList<CompletenessAlert>& open)
{
    AbsenceAlertPlan plan;
    QList<const CompletenessAlert*> kept;
    for (const CompletenessAlert& a : open) {
        if (!isAbsence(a))
            continue;
        const bool looked = a.fromBlock >= window.first && a.toBlock <= window.second;
        const bool stillAbsent =
            std::any_of(absentBlocks.begin(), absentBlocks.end(),
                        [&](std::uint64_t n) { return n >= a.fromBlock && n <= a.toBlock; });
        if (looked && !stillAbsent)
            plan.resolve.append(a.id);
        else
            kept.append(&a);
    }
    // Said once: a check every 10 s at rest finds the same blocks again until they leave
    // the window, and each would otherwise be a new alert.
    for (std::uint64_t n : absentBlocks)
        if (std::none_of(kept.begin(), kept.end(), [n](const CompletenessAlert* a) {
                return n >= a->fromBlock && n <= a->toBlock;
            }))
            plan.record.append(n);
    std::sort(plan.record.begin(), plan.record.end());
    return plan;
}

QString absenceAlertText(const QList<std::uint64_t>& absentBlocks)
{
    QStringList blocks;
    for (std::uint64_t n : absentBlocks)
        blocks << QString::number(n);
    const std::uint64_t first = absentBlocks.isEmpty() ? 0 : absentBlocks.first();
    const std::uint64_t last = absentBlocks.isEmpty() ? 0 : absentBlocks.last();
    const bool one = absentBlocks.size() == 1;
    return QStringLiteral("the node no longer returns stored logs of %1 %2, while %3 still "
                          "match%4 the stored %5, so nothing was deleted: "
                          "either the provider truncates its answers or the stored logs are "
                          "not the chain's. Check them against another node with `forkscope "
                          "verify --from %6 --to %7 --rpc URL`; `forkscope repair --from %6` "
                          "indexes them again from the node and settles this alert, as does "
                          "the node returning them while they are among the last blocks")
        .arg(one ? QStringLiteral("block") : QStringLiteral("blocks"),
             blocks.join(QStringLiteral(", ")),
             one ? QStringLiteral("its header") : QStringLiteral("their headers"),
             one ? QStringLiteral("es") : QString(),
             one ? QStringLiteral("hash") : QStringLiteral("hashes"))
        .arg(first)
        .arg(last);
}

QString absenceLogsReturnedResolution()
{
    return QStringLiteral("the node returns every stored log of these blocks again");
}

QString absenceRolledBackResolution(qint64 reorgId)
{
    return QStringLiteral("its blocks were rolled back (reorg #%1) and are indexed again from "
                          "the node")
        .arg(reorgId);
}

} // namespace forkscope::indexer
