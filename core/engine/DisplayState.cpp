#include "DisplayState.h"
#include "SyncProgress.h"
#include "indexer/IndexerStatus.h"

#include <algorithm>
#include <cmath>

namespace forkscope::engine {

using C = EngineStatus::Connection;

QString DisplayState::text() const
{
    switch (kind) {
    case Kind::Starting:
        return QStringLiteral("starting");
    case Kind::Syncing:
        return QStringLiteral("syncing");
    case Kind::Synced:
        return QStringLiteral("synced");
    case Kind::Paused:
        return QStringLiteral("paused");
    case Kind::Stopped:
        return QStringLiteral("stopped");
    case Kind::DevnetStopped:
        return QStringLiteral("devnet stopped");
    case Kind::NodeUnreachable:
        return QStringLiteral("node unreachable");
    case Kind::DataIncomplete:
        return QStringLiteral("data incomplete");
    case Kind::Failed:
        return QStringLiteral("failed: %1")
            .arg(reason.isEmpty() ? QStringLiteral("no reason given") : reason);
    }
    return {};
}

DisplayState::Tone DisplayState::tone() const
{
    switch (kind) {
    case Kind::Synced:
        return Tone::Good;
    case Kind::Paused:
    case Kind::Stopped:
    case Kind::DevnetStopped:
        return Tone::Warning;
    case Kind::NodeUnreachable:
    case Kind::DataIncomplete:
    case Kind::Failed:
        return Tone::Bad;
    case Kind::Starting:
    case Kind::Syncing:
        break;
    }
    return Tone::Neutral;
}

bool DisplayState::showsRates() const
{
    return kind == Kind::Syncing || kind == Kind::Synced || kind == Kind::DataIncomplete;
}

std::optional<quint64> displayLag(const EngineStatus& s)
{
    return s.lagHeldSet ? s.heldLag : currentLag(s);
}

std::optional<quint64> backfillBlocksToGo(const EngineStatus& s,
                                          const indexer::SourceBackfillProgress& b)
{
    if (!s.checkpoint)
        return std::nullopt;
    // Blocks done: up to its checkpoint, or none below its first block.
    const quint64 done = b.checkpoint ? *b.checkpoint + 1 : b.startBlock;
    return *s.checkpoint + 1 > done ? *s.checkpoint + 1 - done : 0;
}

std::optional<quint64> currentLag(const EngineStatus& s)
{
    // The indexer's head stops with the indexer (a data-incomplete stop, a failure); node
    // health keeps polling the same node. The newer of the two, so a stalled indexer never
    // reads "lag 0" while its node moves on.
    std::optional<quint64> head = s.headBlock;
    for (const health::NodeHealth& n : s.health.nodes)
        if (n.url == s.endpoint && n.head && n.state != health::NodeState::Offline &&
            (!head || *n.head > *head))
            head = *n.head;
    return indexer::IndexerStatus::cursorLag(head, s.checkpoint, s.connection != C::Unreachable);
}

std::optional<quint64> indexedNodeBehind(const EngineStatus& s)
{
    if (!s.headBlock || !s.health.bestHead || *s.health.bestHead <= *s.headBlock)
        return std::nullopt;
    const quint64 behind = *s.health.bestHead - *s.headBlock;
    if (behind <= kNodeBehindTolerance)
        return std::nullopt;
    return behind;
}

namespace {

QString unreachableReason(const EngineStatus& s)
{
    const QString error = s.message.isEmpty() ? QStringLiteral("no answer") : s.message;
    // The URL the user gave (or the lab's node), so a dead --rpc is named as such.
    return s.endpoint.isEmpty() || error.contains(s.endpoint)
               ? error
               : QStringLiteral("%1: %2").arg(s.endpoint, error);
}

} // namespace

DisplayState displayState(const EngineStatus& s)
{
    using K = DisplayState::Kind;
    if (s.connection == C::Failed)
        return {K::Failed, s.message, {}};
    if (s.connection == C::Stopped)
        return {K::Stopped, {}, {}};
    // Every problem true now, most pressing first: the first names the state, the others
    // are said beside it (DisplayState::also).
    const bool databaseFailed =
        s.indexerHalt == EngineStatus::IndexerHalt::Database && !s.indexerFailure.isEmpty();
    const bool unreachable = s.connection == C::Unreachable && !s.devnetStoppedByUser;
    QList<std::pair<K, QString>> problems;
    if (databaseFailed)
        problems.append({K::Failed, s.indexerFailure});
    if (!s.openAlerts.isEmpty())
        problems.append({K::DataIncomplete, s.openAlerts.first().summary()});
    if (unreachable)
        problems.append({K::NodeUnreachable, unreachableReason(s)});
    if (!s.indexerFailure.isEmpty() && !databaseFailed)
        problems.append({K::Failed, s.indexerFailure});
    QStringList all;
    for (const auto& p : problems)
        all << p.second;
    // The devnet the user stopped explains the node not answering: said as that.
    if (s.devnetStoppedByUser)
        return {K::DevnetStopped, {}, all};
    if (!problems.isEmpty()) {
        const auto& [kind, reason] = problems.first();
        // Data incomplete names no reason of its own: the banner and its alert say it.
        return {kind, kind == K::DataIncomplete ? QString() : reason, all.mid(1)};
    }
    if (s.indexingPaused)
        return {K::Paused, {}, {}};
    if (s.connection == C::Starting || s.environmentId.isEmpty() || !s.headBlock)
        return {K::Starting, {}, {}};
    const std::optional<quint64> lag = displayLag(s);
    if (!lag || *lag > 0)
        return {K::Syncing, {}, {}};
    // Lag 0 against a node that is itself behind the others is not "synced".
    if (const auto behind = indexedNodeBehind(s))
        return {K::Syncing,
                QStringLiteral("the indexed node is %1 behind the best watched node")
                    .arg(text::count(qint64(*behind), QStringLiteral("block"),
                                     QStringLiteral("blocks"))),
                {}};
    return {K::Synced, {}, {}};
}

bool deepReorgChoicePending(const EngineStatus& s)
{
    return s.indexerHalt == EngineStatus::IndexerHalt::DeepReorg && s.deepReorgLimit > 0;
}

bool indexerCommandable(const EngineStatus& s)
{
    return s.connection != C::Failed && s.connection != C::Stopped && s.indexerFailure.isEmpty();
}

namespace text {

QString lag(std::optional<quint64> blocks)
{
    if (!blocks)
        return QStringLiteral("lag unknown");
    return QStringLiteral("lag ") +
           count(qint64(*blocks), QStringLiteral("block"), QStringLiteral("blocks"));
}

QString rate(double perSecond, const QString& unit)
{
    const double v = std::isfinite(perSecond) && perSecond > 0 ? perSecond : 0.0;
    return QStringLiteral("%1 %2/s").arg(v, 0, 'f', 0).arg(unit);
}

QString nodeLabel(const EngineStatus& s)
{
    if (!s.managedDevnet)
        return s.endpoint.isEmpty() ? QStringLiteral("node: starting...")
                                    : QStringLiteral("node: %1").arg(s.endpoint);
    if (s.endpoint.isEmpty())
        return QStringLiteral("managed anvil: starting...");
    if (s.labNodes.contains(s.endpoint))
        return QStringLiteral("lab node: %1 (fault proxy in front of the managed anvil)")
            .arg(s.endpoint);
    return QStringLiteral("managed anvil: %1").arg(s.endpoint);
}

QString cursorHeader(const EngineStatus& s, const QDateTime& now)
{
    const DisplayState state = displayState(s);
    QStringList parts{state.kind == DisplayState::Kind::Syncing && !state.reason.isEmpty()
                          ? state.text() + QStringLiteral(" (") + state.reason + QLatin1Char(')')
                          : state.text()};
    const std::optional<quint64> lagBlocks = displayLag(s);
    parts << lag(lagBlocks);
    if (state.showsEta() && lagBlocks && *lagBlocks > 0) {
        const auto secs = etaSeconds(*lagBlocks, s.blocksPerSecond);
        parts << (secs ? QStringLiteral("ETA ") + humanDuration(*secs)
                       : QStringLiteral("ETA unknown"));
    }
    if (state.showsRates())
        parts << rate(s.eventsPerSecond, QStringLiteral("events"));
    // Freshness is not lag: a synced indexer on a stalled chain has lag 0 and old data.
    parts << (s.lastCommitAt.isValid()
                  ? QStringLiteral("last commit %1 ago")
                        .arg(humanDuration(
                            double(std::max<qint64>(0, s.lastCommitAt.msecsTo(now))) / 1000.0))
                  : QStringLiteral("nothing committed yet"));
    return parts.join(QStringLiteral(" | "));
}

} // namespace text

} // namespace forkscope::engine
