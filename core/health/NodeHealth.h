#pragma once

#include "NodeState.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>
#include <cstdint>
#include <optional>

// What node health looks like from outside the monitor: values only, part of the engine
// API the window links (NodeHealthMonitor.h holds the poller).
namespace forkscope::health {

struct NodeHealth
{
    QString url;
    NodeState state = NodeState::Offline;
    std::optional<std::uint64_t> head;
    std::optional<chain::Hash32> headHash; // the hash of `head`'s block, as the node answered
    int latencyMs = -1;
    QString lastError;
    qint64 polls = 0;
    qint64 failures = 0;
    qint64 timeouts = 0; // polls that hit their deadline (a slow or trickling node)
    // Truncations the indexer's completeness proofs caught on this node, and where.
    qint64 droppedLogs = 0;
    std::optional<std::uint64_t> lastDropBlock;
};

struct HealthSample
{
    qint64 atMs = 0; // ms since the epoch
    std::uint64_t height = 0;
    NodeState state = NodeState::Offline;
};

// An immutable picture of every node after one poll, for the GUI, the API and the gate.
struct HealthSnapshot
{
    QList<NodeHealth> nodes;
    std::optional<std::uint64_t> bestHead;
    std::optional<std::uint64_t> readyHeight; // the ready-ratio gate
    QDateTime at;
};

} // namespace forkscope::health

Q_DECLARE_METATYPE(forkscope::health::HealthSnapshot)
