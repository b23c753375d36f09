#pragma once

#include "indexer/IndexerConfig.h"

#include <QList>
#include <QStringList>
#include <QUrl>
#include <chrono>
#include <optional>

namespace forkscope::app {

struct IndexOptionsResult
{
    std::optional<indexer::IndexerConfig> config; // set on success
    QUrl webhook;                                 // outbox sink: HTTP webhook
    QString outboxFile;                           // outbox sink: JSON Lines file
    std::chrono::milliseconds webhookTimeout{5000};
    int webhookBatch = 1; // rows per webhook request (> 1: batch mode)
    // Node health and the ready-ratio gate (defaults: the --rpc node alone).
    QList<QUrl> nodes;
    double readyRatio = 0.8;
    std::uint64_t lagThreshold = 2;
    std::chrono::milliseconds checkInterval{1000};
    quint16 metricsPort = 0; // 0: no local API
    // A PostgreSQL database shared by several processes: a claimed backfill range's lease.
    std::chrono::milliseconds rangeLease{30000};
    // --exit-when-synced: how long a node in trouble is waited on (TroubleDeadline.h).
    std::chrono::milliseconds giveUpAfter{120000};
    std::chrono::milliseconds retryIncomplete{0}; // 0: a block not fetched whole exits 1
    QString error;                                // one line, names the bad flag or key
    bool helpRequested = false;
    QString helpText;
};

// Parses `forkscope index` flags, with an optional --config JSON file whose keys mirror the
// flags (rpc, db, env, source, contracts, fromBlock, confirmations, maxReorgDepth,
// batchSize, pollMs, exitWhenSynced, ...); flags given on the command line win. Each key
// has one JSON type (arrays for contracts and nodes, numbers, a boolean, else strings) and
// nothing is coerced; every bad value is one `error` line naming the flag, or the key and
// the file.
IndexOptionsResult parseIndexOptions(const QStringList& arguments);

} // namespace forkscope::app
