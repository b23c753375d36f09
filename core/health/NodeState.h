#pragma once

#include "chain/Hash32.h"

#include <QList>
#include <QString>
#include <cstdint>
#include <optional>

namespace forkscope::health {

enum class NodeState { CaughtUp = 1, Lagging = 2, Offline = 3, Forked = 4, DroppingLogs = 5 };

QString nodeStateName(NodeState s);

// One poll of one node.
struct NodeObservation
{
    bool answered = false;                 // false: timeout or error
    std::uint64_t head = 0;                // eth_blockNumber
    std::optional<chain::Hash32> headHash; // hash of its head block
};

// The rules, as pure functions (docs/design.md, "Node health and the ready-ratio gate"):
//   offline    the node did not answer in time or answered an error;
//   dropping logs  the indexer caught it returning fewer logs than its blocks commit to
//              (the completeness proofs); a node that lied stays marked;
//   forked     its head block has a different hash than the indexer's canonical block at
//              that height;
//   caught up  within lagThreshold blocks of the best head any node reports;
//   lagging    otherwise.
NodeState classify(const NodeObservation& obs, std::uint64_t bestHead, std::uint64_t lagThreshold,
                   const std::optional<chain::Hash32>& canonicalAtHead, bool droppedLogs = false);

// The ready-ratio gate: the highest height that at least ceil(ratio x nodes) nodes have
// reached (offline nodes count against it). nullopt when too few nodes answer at all, in
// which case nothing new counts as confirmed.
std::optional<std::uint64_t> readyHeight(const QList<std::optional<std::uint64_t>>& heads,
                                         double ratio);

} // namespace forkscope::health
