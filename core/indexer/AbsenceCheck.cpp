#include "AbsenceCheck.h"
#include "rpc/EthClient.h"
#include "wire/LogReplyCheck.h"
#include "wire/ProviderLimit.h"

#include <QStringList>
#include <algorithm>

namespace forkscope::indexer {

QList<std::uint64_t> blocksWithAbsentLogs(const QSet<LogAt>& held, const QSet<LogAt>& present)
{
    QList<std::uint64_t> blocks;
    for (const LogAt& at : held)
        if (!present.contains(at) && !blocks.contains(at.first))
            blocks.append(at.first);
    std::sort(blocks.begin(), blocks.end());
    return blocks;
}

std::optional<std::pair<std::uint64_t, std::uint64_t>>
absenceWindow(std::uint64_t window, std::uint64_t firstIndexed, std::uint64_t checkpoint)
{
    if (window == 0 || checkpoint < firstIndexed)
        return std::nullopt;
    const std::uint64_t lo = checkpoint + 1 > window ? checkpoint + 1 - window : 0;
    return std::pair{std::max(lo, firstIndexed), checkpoint};
}

namespace {

// The window's logs as the node has them, into `present`. A reply of `logCap` logs or more
// may be a result cap, not the chain (a silently capping provider answers exactly that
// many): its range is asked again in halves, and a single block still at the cap proves
// nothing either way, so it goes to `unprovable` instead of being called absent.
void readWindow(rpc::EthClient& eth, std::uint64_t from, std::uint64_t to,
                const QList<chain::Address>& contracts, std::uint64_t logCap, QSet<LogAt>& present,
                QSet<std::uint64_t>& unprovable)
{
    const rpc::LogFilter f = rpc::LogFilter::range(from, to, contracts);
    QList<chain::LogEntry> now;
    try {
        now = eth.getLogs(f);
    } catch (const rpc::RpcException& e) {
        // A provider's limit on a filter's addresses (a factory's children): half the list
        // at a time.
        if (e.error().kind != rpc::RpcError::Kind::Remote || contracts.size() < 2 ||
            !wire::parseAddressLimit(e.error().message))
            throw;
        const qsizetype half = contracts.size() / 2;
        readWindow(eth, from, to, contracts.first(half), logCap, present, unprovable);
        readWindow(eth, from, to, contracts.mid(half), logCap, present, unprovable);
        return;
    }
    wire::checkLogsMatchFilter(now, f, eth.endpointText());
    if (logCap > 0 && std::uint64_t(now.size()) >= logCap) {
        if (from == to) {
            unprovable.insert(from);
            return;
        }
        const std::uint64_t mid = from + (to - from) / 2;
        readWindow(eth, from, mid, contracts, logCap, present, unprovable);
        readWindow(eth, mid + 1, to, contracts, logCap, present, unprovable);
        return;
    }
    for (const auto& log : now)
        present.insert({log.blockNumber, log.logIndex});
}

} // namespace

AbsenceFinding
checkForAbsence(rpc::EthClient& eth, std::pair<std::uint64_t, std::uint64_t> window,
                const QList<chain::Address>& contracts, std::uint64_t logCap, QSet<LogAt> held,
                const std::function<std::optional<chain::Hash32>(std::uint64_t)>& storedHash)
{
    AbsenceFinding finding;
    if (held.isEmpty())
        return finding;
    QSet<LogAt> present;
    QSet<std::uint64_t> unprovable;
    // A factory's children may be more than one filter takes (wire::PartedLogReader).
    constexpr qsizetype kAddressesPerCall = 1000;
    for (qsizetype i = 0; i < contracts.size(); i += kAddressesPerCall)
        readWindow(eth, window.first, window.second, contracts.mid(i, kAddressesPerCall), logCap,
                   present, unprovable);
    if (!unprovable.isEmpty())
        held.removeIf([&](const LogAt& at) { return unprovable.contains(at.first); });
    finding.blocks = blocksWithAbsentLogs(held, present);
    if (finding.blocks.isEmpty())
        return finding;
    const auto headers = eth.blocksByNumber(finding.blocks.first(), finding.blocks.last());
    for (std::uint64_t n : finding.blocks) {
        const auto& header = headers.at(qsizetype(n - finding.blocks.first()));
        const auto stored = storedHash(n);
        if (header && stored && header->hash != *stored)
            finding.contradicted = true;
    }
    return finding;
}

QString describeAbsence(const AbsenceFinding& finding)
{
    QStringList blocks;
    for (std::uint64_t n : finding.blocks)
        blocks << QString::number(n);
    return QStringLiteral("ABSENCE: stored logs of %1 %2 are no longer returned by the node; %3")
        .arg(blocks.size() == 1 ? QStringLiteral("block") : QStringLiteral("blocks"),
             blocks.join(QStringLiteral(", ")),
             finding.contradicted
                 ? QStringLiteral("a header hash disagrees: rolling back (reason absence)")
                 : QStringLiteral("headers still match: nothing deleted (suspect truncation or "
                                  "misconfiguration of the provider)"));
}

} // namespace forkscope::indexer
