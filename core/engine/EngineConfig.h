#pragma once

#include "indexer/IndexerConfig.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QUrl>
#include <chrono>

namespace forkscope::engine {

// What the engine should connect to. The app's embedded default is a managed anvil and a
// SQLite file in the user's data directory; pointing at another endpoint is a settings
// change (managedDevnet = false, rpcUrl = ...).
struct EngineConfig
{
    bool managedDevnet = true;
    QUrl rpcUrl;    // used when managedDevnet is false
    QString dbPath; // SQLite file; its directory is created if missing
    // The indexer's policy, as File > Settings edits it (the same struct, and so the same
    // meaning, as `forkscope index`): fromBlock, confirmations, maxReorgDepth, batchSize,
    // pollInterval, rpcTimeout, fetchWorkers, abiPath, environmentId. Its rpcUrl, dbPath
    // and contracts are filled in by the engine (the lab's node, dbPath, the demo token).
    // A managed lab gets a fresh environment id per devnet (a new anvil is a new chain)
    // when indexer.environmentId is empty: "lab-<UTC time>".
    indexer::IndexerConfig indexer;
    bool indexing = true;
    QStringList contracts; // 0x addresses, for an external node (the lab adds its token)
    // Factories whose children are indexed too (the lab adds its demo factory).
    QList<wire::FactorySource> factories;
    QList<QUrl> nodes; // watched for health; empty: the indexed node itself
    double readyRatio = 0.8;
    // A managed lab always gets the demo token; demo traffic (a spray of transfers every
    // demoInterval) is what makes the panels move with nothing configured.
    bool demoTraffic = true;
    std::chrono::milliseconds demoInterval{1000};
    int demoTransfersPerTick = 10;
    // The lab's demo factory makes a child every this many demo ticks (0: no demo factory),
    // and each tick sends a Transfer through one of its children. The app turns it on.
    int demoChildEveryTicks = 0;
    // Fault proxies in front of the managed anvil: the lab's "nodes". The indexer reads
    // through the first, health watches all; each one's knobs are live (Lab > Fault proxy).
    int labNodes = 0;
    // The outbox: with a webhook the dispatcher runs on its own thread and delivers rows at
    // or below the safe height; without one, rows wait (and the panel says so).
    QUrl webhook;
    std::chrono::milliseconds webhookTimeout{5000};
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::EngineConfig)
