#pragma once

#include "chain/Address.h"
#include "concurrency/StopToken.h"
#include "forktree/ForkTreeLimits.h"
#include "wire/CompletenessCheck.h"
#include "wire/FactorySource.h"

#include <QList>
#include <QString>
#include <QUrl>
#include <chrono>
#include <cstdint>
#include <optional>

namespace forkscope::indexer {

// Version of the projection algorithm (transfer decoding + balance rules). A checkpoint
// records the generation it was computed under; data from another generation is not
// silently continued: a new algorithm is a new generation, not a reorg (docs/design.md,
// "The checkpoint is a claim about a finished prefix").
inline constexpr int kProjectionGeneration = 1;

struct IndexerConfig
{
    QUrl rpcUrl;
    QString dbPath;
    QString environmentId;
    QString sourceId = QStringLiteral("default");
    QList<chain::Address> contracts;
    // Factories whose children are indexed like `contracts`, each from the block of its
    // creation event (wire/FactorySource.h); the factories' own logs are indexed too.
    QList<wire::FactorySource> factories;
    std::uint64_t fromBlock = 0;
    // The confirmation policy: blocks deeper than this below the head are "safe" (the
    // outbox delivers only those). The indexer itself follows the head so reorgs are seen.
    std::uint64_t confirmations = 0;
    std::uint64_t maxReorgDepth = 64;
    // The fork tree keeps the branches of this many latest rollbacks (0: none).
    qint64 orphanRetention = forktree::kDefaultOrphanRetention;
    // Blocks per range (and per commit); a backfill shrinks its ranges on dense blocks toward
    // fetch_window::kMaxLogsPerRange logs.
    std::uint64_t batchSize = 200;
    std::chrono::milliseconds pollInterval{1000};
    std::chrono::milliseconds rpcTimeout{10000};
    // Every reply is read whole into memory, so it is capped; a getLogs reply over the cap
    // is fetched again over a smaller range (like a provider's limit).
    qint64 maxReplyBytes = 32LL * 1024 * 1024;
    // How often the node's chain id and genesis are re-checked while indexing (also after
    // every outage and before every rollback): a node switched to another chain must stop
    // the environment, not feed it another chain's blocks.
    std::chrono::milliseconds identityCheckInterval{30000};
    bool exitWhenSynced = false;
    // Fetch threads (parallel ranges during backfill; one range ahead at the head).
    int fetchWorkers = 4;
    // About how many logs one eth_getLogs call asks for (wire::FetchSpec::logsPerCall).
    qint64 logsPerCall = 1000;
    // eth_getLogs results of exactly this size are treated as possibly truncated.
    std::uint64_t logCap = 10000;
    // The completeness proofs every fetch runs (--verify): bloom + recount by default.
    wire::CompletenessPolicy completeness;
    // Set by whoever runs the indexer (IndexingService): cancels its fetch threads' waits.
    concurrency::StopTokenPtr stopToken;
    // A range that failed this many times in a row is marked failed in backfill_ranges
    // (and still retried, with a capped backoff: it is never skipped).
    int maxRangeAttempts = 5;
    // How many blocks below the checkpoint are re-fetched at the head to notice logs that
    // vanished without a hash changing (docs/design.md, "Absence is loud and corroborated").
    std::uint64_t absenceWindow = 12;
    // A standard Solidity ABI JSON for the contracts: every matching log is decoded into
    // logs.event_name / logs.args_json. Empty: Transfer projection only.
    QString abiPath;
    // This writer's name among the writers of a shared database (empty: HOST/PID), and how
    // long a backfill range it holds stays its own without a renewal.
    QString owner;
    std::chrono::milliseconds rangeLease{30000};

    // The addresses every range is fetched for: the contracts and the factories (children
    // come on top, range by range).
    QList<chain::Address> sourceAddresses() const
    {
        QList<chain::Address> out = contracts;
        for (const chain::Address& f : wire::factoryAddresses(factories))
            if (!out.contains(f))
                out.append(f);
        return out;
    }
    // Whether there is anything to index: contracts, or factories whose children are.
    bool hasSources() const { return !contracts.isEmpty() || !factories.isEmpty(); }
    // The factories' rules, as the checkpoint's contract set records them.
    QStringList factoryRules() const
    {
        QStringList out;
        for (const wire::FactorySource& f : factories)
            out << f.ruleText();
        return out;
    }

    // Recorded with the checkpoint: which confirmation policy the cursor was computed under.
    QString policyVersion() const
    {
        return QStringLiteral("follow-head/confirmations=%1").arg(confirmations);
    }
};

} // namespace forkscope::indexer
