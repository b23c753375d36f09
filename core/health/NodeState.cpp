#include "NodeState.h"

#include <algorithm>
#include <cmath>

namespace forkscope::health {

QString nodeStateName(NodeState s)
{
    switch (s) {
    case NodeState::CaughtUp:
        return QStringLiteral("caught up");
    case NodeState::Lagging:
        return QStringLiteral("lagging");
    case NodeState::Offline:
        return QStringLiteral("offline");
    case NodeState::Forked:
        return QStringLiteral("forked");
    case NodeState::DroppingLogs:
        return QStringLiteral("dropping logs");
    }
    return {};
}

NodeState classify(const NodeObservation& obs, std::uint64_t bestHead, std::uint64_t lagThreshold,
                   const std::optional<chain::Hash32>& canonicalAtHead, bool droppedLogs)
{
    if (!obs.answered)
        return NodeState::Offline;
    if (droppedLogs)
        return NodeState::DroppingLogs;
    if (canonicalAtHead && obs.headHash && *canonicalAtHead != *obs.headHash)
        return NodeState::Forked;
    return obs.head + lagThreshold >= bestHead ? NodeState::CaughtUp : NodeState::Lagging;
}

std::optional<std::uint64_t> readyHeight(const QList<std::optional<std::uint64_t>>& heads,
                                         double ratio)
{
    if (heads.isEmpty())
        return std::nullopt;
    const qsizetype needed = std::max<qsizetype>(
        1, qsizetype(std::ceil(std::clamp(ratio, 0.0, 1.0) * double(heads.size()) - 1e-9)));
    QList<std::uint64_t> answered;
    for (const auto& h : heads)
        if (h)
            answered.append(*h);
    if (answered.size() < needed)
        return std::nullopt;
    std::sort(answered.begin(), answered.end(), std::greater<>());
    return answered.at(needed - 1); // `needed` nodes are at this height or above
}

} // namespace forkscope::health
