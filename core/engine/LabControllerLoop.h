#pragma once

// What LabController keeps on its thread (shared by LabController.cpp and
// LabScenarios.cpp; nothing else includes it).
#include "LabController.h"
#include "concurrency/WorkerThread.h"
#include "indexer/Indexer.h"
#include "lab/DemoFactory.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "lab/EnvironmentBook.h"
#include "lab/FaultProxy.h"
#include "lab/LabSink.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "store/ReadOnlyStore.h"

#include <QDeadlineTimer>
#include <QPointer>
#include <QTemporaryDir>
#include <optional>

namespace forkscope::engine {

// Everything below lives on the lab thread only.
struct LabController::Loop
{
    LabSnapshot snap;
    QString environmentId;
    std::unique_ptr<lab::Devnet> devnet;
    quint16 devnetPort = 0;
    QTemporaryDir devnetState; // where a stopped managed anvil keeps its chain
    concurrency::WorkerThread proxyThread{QStringLiteral("forkscope-lab-proxies")};
    QList<QPointer<lab::FaultProxy>> proxies;
    // The lab's own client, straight to anvil: a fault set on a lab node is for the indexer
    // and the health monitor to cope with, not something that should break the workload or
    // the ground truth the verdict is checked against.
    std::unique_ptr<rpc::JsonRpcClient> anvil;
    // Each opened when first needed, on either store, and dropped after a failure (a
    // server that went away is connected to again next time).
    std::unique_ptr<lab::EnvironmentBook> book;  // a reset, an archive
    std::unique_ptr<store::ReadOnlyStore> truth; // the verdict's reads: committed rows only
    std::unique_ptr<lab::DemoToken> demo;
    quint64 demoOffset = 0;
    std::unique_ptr<lab::DemoFactory> factory; // next to the demo token
    quint64 demoTicks = 0;
    QDeadlineTimer nextDemoTick;
    QString verdictAction;     // non-empty: a check is due once the indexer is synced
    qint64 verdictAfterNs = 0; // ... on a step that began after this (steady clock)
    // The indexer stopped and waits for the user (EngineStatus::IndexerHalt; 0: it runs),
    // and why: a due verdict is settled by that, not by waiting.
    int indexerHalt = 0;
    QString haltedBecause;
    // Scenarios.
    std::unique_ptr<lab::Devnet> replica;
    std::unique_ptr<indexer::IndexStore> writerStore;
    std::unique_ptr<rpc::JsonRpcClient> writerRpc;
    std::unique_ptr<rpc::EthClient> writerEth;
    std::unique_ptr<indexer::Indexer> writer;
    QDeadlineTimer writerUntil;
    QPointer<lab::FaultProxy> writerProxy; // its slow view of anvil (proxies' thread)
    qint64 writerRefusalsSeen = 0;
    bool writerDemoWasOn = false;
    // The outbox's lost acknowledgement: the receiver, and until when the lab waits for the
    // row to be sent again (then the verdict, with the outbox line).
    QPointer<lab::LabSink> sink; // on the proxies' thread
    std::optional<QDeadlineTimer> outboxAckUntil;
    bool outboxAckChecked = false;      // runVerdict adds the outbox line
    std::optional<quint64> deepReorgAt; // inject once the indexer's checkpoint reaches it
    int deepReorgDepth = 0;
    quint64 deepReorgLimit = 0;
};

} // namespace forkscope::engine
