#pragma once

// EngineHost's private parts, shared by its source files: EngineHost.cpp (starting a
// session and its workers, and stopping them), EngineHostStatus.cpp (the status it folds
// from the workers' snapshots) and EngineHostCommands.cpp (the window's commands, forwarded
// to the worker that carries them out). Nothing else includes it.
#include "EngineHost.h"
#include "ForeignWatchService.h"
#include "IndexingService.h"
#include "LabController.h"
#include "ReadService.h"

#include <QDeadlineTimer>
#include <memory>

namespace forkscope::engine {

// What the engine says when there is nothing to index, at start and in the status.
inline const QString kNoContracts =
    QStringLiteral("no contracts configured: indexing is off (add them in Settings)");

// The workers of one start(). Signals from a retired session are dropped: each connection
// below checks that its session is still the live one (a stale answer never reaches the
// window, as in hotspot's job tracker).
struct EngineHost::Session
{
    EngineConfig config;
    std::unique_ptr<LabController> lab;
    std::unique_ptr<IndexingService> indexing;
    std::unique_ptr<ReadService> read;
    std::unique_ptr<ForeignWatchService> foreign; // made at the first watch
    LabSetup setup;
    bool labReady = false;
    bool indexingSuspended = false; // a lab reset took the environment away
    QString liveEnvironment;
    quint64 chainId = 0;
    QString tokenNode;        // the node the read side asks for token metadata
    bool announced = false;   // "connected to ..., chain id N" logged
    bool noContracts = false; // indexing is on but there is nothing to index
    // Node health's polls, not an indexer step, last said the node does not answer.
    bool unreachableFromHealth = false;
    bool retryAnswered = false; // after a Retry: "still does not answer" logged once
    // The indexer's stops (IndexingSnapshot::haltCount): the last seen, those a command
    // lifted (raise the limit, repair), and whether the lab was told it is stopped.
    quint64 haltCount = 0;
    quint64 haltsLifted = 0;
    bool haltForwarded = false;
    qint64 conflictsBeforeRace = 0; // this indexer's refusals when a second writer started
    QString routedSink;             // the lab's receiver the outbox was sent to

    void requestStop()
    {
        // The indexer first; the lab archives its environment when the indexer is gone
        // (chained in startIndexing by a direct connection, so no GUI event is needed).
        if (indexing && indexing->isRunning())
            indexing->requestStop();
        else if (lab)
            lab->requestStop();
        if (read)
            read->requestStop();
        if (foreign)
            foreign->requestStop();
    }
    bool join(QDeadlineTimer deadline)
    {
        if (indexing && !indexing->wait(std::chrono::milliseconds(
                            std::max<qint64>(0, deadline.remainingTime()))))
            return false;
        if (lab) {
            lab->requestStop();
            if (!lab->wait(
                    std::chrono::milliseconds(std::max<qint64>(0, deadline.remainingTime()))))
                return false;
        }
        if (foreign && !foreign->wait(std::chrono::milliseconds(
                           std::max<qint64>(0, deadline.remainingTime()))))
            return false;
        return !read ||
               read->wait(std::chrono::milliseconds(std::max<qint64>(0, deadline.remainingTime())));
    }
};

} // namespace forkscope::engine
