#pragma once

#include "AuditTarget.h"
#include "indexer/IndexerConfig.h"
#include "indexer/IndexerStatus.h"
#include "indexer/ReorgRollback.h"

#include <functional>
#include <optional>

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::indexer {
class IndexStore;
}

namespace forkscope::audit {

// What a repair will do, checked before anything is changed.
struct RepairPlan
{
    AuditTarget target;
    std::uint64_t from = 0;                 // the first block rolled back and indexed again
    std::optional<std::uint64_t> forkBlock; // from - 1; nullopt when from is the start block
    chain::Hash32 forkHash;                 // the stored hash of forkBlock
    std::uint64_t confirmations = 0;        // the checkpoint's policy, kept as it was
    qint64 blocksAbove = 0;                 // stored rows the rollback removes
    qint64 logsAbove = 0;
    // Balances that were not the sum of their stored Transfers, whose holders' Transfers
    // below `from` were checked against the node (RebuildCheck.h) before anything changed.
    qint64 wrongBalances = 0;
    qint64 transfersChecked = 0;
    // False when `from` is the block right after the checkpoint, where indexing stopped on
    // an open completeness alert: nothing is stored there, so nothing is rolled back; the
    // alert is resolved and the range fetched (from another node, typically).
    bool rollbackNeeded = true;
};

// What the one-transaction rollback did.
struct RepairRollback
{
    indexer::RollbackResult rollback;
    // Balances that did not equal the sum of the stored transfers left below the fork
    // (rows lost or tampered with), rebuilt in the same transaction; 0 for honest data.
    qint64 balancesRebuilt = 0;
    // Open completeness alerts the repair covers (to_block >= from), resolved in the same
    // transaction: the range they name is fetched again.
    int alertsResolved = 0;
};

// What indexing again committed.
struct ReindexResult
{
    std::uint64_t checkpoint = 0;
    std::uint64_t head = 0;
    qint64 blocks = 0;
    qint64 logs = 0;
    qint64 transfers = 0;
    qint64 reorgs = 0; // rollbacks the indexer made meanwhile (the chain moved on)
};

// Repairs stored data from block N on, on either store (indexer::IndexStore): rolls the
// environment back to N - 1 in ONE transaction exactly as a reorg rollback does (reason "repair":
// reorg_events and reorg_diff_items record every removed transfer, dropped or retracted
// outbox row and changed balance; the checkpoint moves to N - 1; balances that do not equal
// the sum of the remaining transfers are rebuilt in the same transaction), then indexes again with
// the checkpoint's own contract set up to the node's head. The app's Repair button and
// `forkscope repair` both drive it. Blocking RPC: run it on a worker thread or a headless
// main loop.
class EnvironmentRepair
{
public:
    // `base` carries how to reach the node (rpcUrl, timeouts, reply cap, log cap, fetch
    // workers, batch size, ABI file); the environment's own settings come from its
    // checkpoint.
    EnvironmentRepair(indexer::IndexStore& store, rpc::EthClient& eth, indexer::IndexerConfig base);

    // Every refusal, before anything is written: unknown or archived environment, nothing
    // indexed, `from` above the checkpoint or below the start block, block from - 1 not
    // stored, an open completeness alert that starts below `from` (its range would be
    // marked repaired without being fetched again), the node on another chain, an
    // environment decoded with an ABI and no ABI file given, a balance that is not the sum
    // of its stored Transfers while one of those below `from` is not the node's (the rebuild
    // would make it wrong: checkRebuildBelow), another writer of a shared environment
    // following its head. Throws AuditError.
    RepairPlan plan(const QString& environmentId, std::uint64_t from);

    // The one-transaction rollback to plan.forkBlock, then (same transaction) the balances
    // rebuilt from the transfers that remain, each correction recorded as a balance_changed
    // diff item of the same reorg event. Throws CheckpointMovedError when another writer
    // moved the checkpoint since plan() (nothing changed), StoreError.
    RepairRollback rollBack(const RepairPlan& plan);

    // Indexes again up to the node's head (the checkpoint verified there). `progress` is
    // called after every round; `stop` is polled between rounds. A node that stays
    // unavailable or inconsistent for many rounds, or a fatal indexer error, is an
    // AuditError (Incomplete) that says the rollback is committed and how to finish.
    ReindexResult reindex(const RepairPlan& plan,
                          const std::function<void(const indexer::IndexerStatus&)>& progress = {},
                          const std::function<bool()>& stop = {});

    // Consecutive rounds of node trouble before reindex() gives up.
    static constexpr int kMaxTroubleRounds = 30;

    // Called with each rollback the indexer makes while indexing again.
    std::function<void(const indexer::RollbackResult&, const QString& reason)> onReorg;

private:
    // Binds the store to the plan's environment (its chain, contracts and ABI).
    void openEnvironment(const RepairPlan& plan);

    indexer::IndexStore& m_store;
    rpc::EthClient& m_eth;
    indexer::IndexerConfig m_base;
};

// The confirmations of a checkpoint's policy version ("follow-head/confirmations=N"), or
// nullopt when it is not in that form.
std::optional<std::uint64_t> confirmationsOf(const QString& policyVersion);

} // namespace forkscope::audit
