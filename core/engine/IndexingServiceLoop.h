#pragma once

// What IndexingService keeps on its thread (shared by IndexingService.cpp, the loop, and
// IndexingServiceCommands.cpp, the window's commands; nothing else includes it).
#include "IndexingService.h"
#include "RateWindow.h"
#include "concurrency/WorkerThread.h"
#include "indexer/IndexStore.h"
#include "indexer/Indexer.h"
#include "outbox/OutboxThread.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"

#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QPointer>
#include <optional>

namespace forkscope::engine {

// Everything below is created, used and destroyed on the loop thread only.
struct IndexingService::Loop
{
    IndexingOptions options;
    std::unique_ptr<indexer::IndexStore> store;
    std::unique_ptr<rpc::JsonRpcClient> rpc;
    std::unique_ptr<rpc::EthClient> eth;
    std::unique_ptr<indexer::Indexer> indexer;
    std::unique_ptr<outbox::OutboxThread> outbox;
    concurrency::WorkerThread healthThread{QStringLiteral("forkscope-health")};
    QPointer<health::NodeHealthMonitor> monitor;
    IndexingSnapshot snap;
    QElapsedTimer sincePublish;
    QElapsedTimer rateClock;
    RateWindow rates;
    qint64 lastBlocks = -1;
    qint64 lastTruncations = 0;              // the indexer's caught truncations at the last step
    std::optional<QDeadlineTimer> retryAt;   // a truncation stop: try the node again then
    bool retryingIncomplete = false;         // that try runs: the stop holds until a commit
    std::optional<QDeadlineTimer> restartAt; // a simulated crash: restart then
    QString crashedAt;
    // The head hash last stored per node (the store stores only changes; this spares it the
    // look when nothing changed). Cleared with each new indexer: the environment may be new.
    QHash<QString, chain::Hash32> storedHeads;
    QString sightingError; // the last failure to store them, said once
};

} // namespace forkscope::engine
