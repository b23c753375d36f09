#pragma once

#include "ChildBook.h"
#include "Coordination.h"
#include "FetchWindow.h"
#include "ForkFinder.h"
#include "HeadCheckAhead.h"
#include "IndexStore.h"
#include "IndexerConfig.h"
#include "IndexerStatus.h"

#include "rpc/EthClient.h"
#include "wire/FetchPool.h"

#include <QElapsedTimer>
#include <functional>
#include <memory>
#include <optional>

namespace forkscope::indexer {

class SourceBackfill;

// The reorg-safe loop (docs/design.md, "Indexing: one round"), one round per step(), on
// whichever store it is given (IndexStore): the same engine for a SQLite file and a shared
// PostgreSQL database.
//   1. read head and checkpoint; confirm the checkpoint is still on the node's chain
//      (a mismatch finds the fork point and rolls back in one transaction);
//   2. fetch headers cp+1 .. min(cp+batch, head) in one batch; keep only the prefix whose
//      parent hashes link;
//   3. fetch the contracts' logs for that prefix; check each against its header;
//   4. commit blocks, logs, transfers, balances, outbox and checkpoint together.
// Far behind the head the ranges come from the store's Coordination: in block order on
// SQLite, leased among the processes on PostgreSQL (committed out of order, the checkpoint
// following the finished prefix). Near the head only the writer that leads the head indexes
// and decides reorgs; the others stand by.
// An unreachable or lagging node never causes a rollback: the round ends and the
// checkpoint stays. Blocking RPC: run it on a worker thread (or a headless main loop).
class Indexer
{
public:
    Indexer(IndexerConfig config, IndexStore& store, rpc::EthClient& eth);
    ~Indexer();

    // Reads the node's chain id and genesis, and opens (or checks) the environment.
    // Throws ChainResetError / EnvironmentArchivedError / IndexerError; RpcException when
    // the node cannot be asked.
    void prepare();
    bool isPrepared() const { return m_prepared; }

    // One round. Throws DeepReorgError and StoreError (fatal); everything about an
    // unavailable node is reported in the returned status instead.
    const IndexerStatus& step();
    const IndexerStatus& status() const { return m_status; }
    std::uint64_t chainId() const { return m_chainId; }

    // Called with each committed rollback (for loud reporting).
    std::function<void(const RollbackResult&, const QString& reason)> onReorg;
    // Called when stored logs are absent on the node; `contradicted` says whether a header
    // hash disagreed (then a rollback with reason "absence" follows).
    std::function<void(const QList<std::uint64_t>& blocks, bool contradicted)> onAbsence;
    // Called with each backfill range taken over from another writer (a shared store).
    std::function<void(const RangeClaim& claim)> onTakeover;
    // Called when this writer starts or stops leading the head (following it, deciding
    // reorgs); on SQLite once, at the start.
    std::function<void(bool leads)> onLeadChanged;

    // Adds a contract to the environment (docs/sources.md): it is backfilled from
    // `fromBlock` (nullopt: its deployment block) up to the checkpoint by the next rounds,
    // next to the head, then joins the contract set. Throws IndexerError when nothing is
    // indexed yet or the address has no code; RpcException when the node cannot be asked.
    void addSource(const chain::Address& address, std::optional<std::uint64_t> fromBlock);
    // The same for a factory: its children, each from its creation block, are backfilled
    // with it and join with it.
    void addFactory(const wire::FactorySource& factory, std::optional<std::uint64_t> fromBlock);

    // The receiver side of the wire (docs/design.md, "The wire: the receiver owns the
    // cursor"): a batch is applied only if it starts at expectedFromBlock (the checkpoint +
    // 1); otherwise it is rejected and the caller is told where to start. A re-sent batch
    // after a lost acknowledgement therefore can never be applied twice: the cursor is the
    // idempotency key.
    struct Acceptance
    {
        bool accepted = false;
        std::uint64_t expectedFromBlock = 0;
        QString reason;
    };
    Acceptance accept(const wire::WireBatch& batch);
    // The lab's "lost acknowledgement": the next accepted batch's answer is dropped, so the
    // fetcher sends that batch again. The receiver refuses it (it no longer starts at
    // expectedFromBlock) and names where to go on; onResentBatch reports the exchange.
    void loseNextAcknowledgement() { m_loseNextAck = true; }
    std::function<void(std::uint64_t from, std::uint64_t to, const Acceptance& again)>
        onResentBatch;
    std::uint64_t expectedFromBlock();
    // The context a batch must carry to be accepted here.
    wire::WireContext wireContext() const;

private:
    // One round's plan (IndexerRound.cpp).
    struct Round
    {
        std::optional<Checkpoint> cp;
        std::uint64_t head = 0;
        std::uint64_t from = 0; // where the receiver expects the next batch
        bool backfill = false;  // far behind: claimed ranges, fetched in parallel
        bool whole = false;     // a claimed range, committed whole or not at all
        std::optional<RangeClaim> planned;
    };
    // The round's steps; each returns true when the round ends there.
    bool confirmOnChain(Round& r);
    bool planRange(Round& r);
    bool takePlannedBatch(Round& r, std::optional<wire::FetchOutcome>& outcome);
    void commitRoundBatch(const Round& r, const wire::WireBatch& batch);
    // Nothing to fetch: the absence recheck when due, then synced (or waiting for the start).
    void atTheHead(const Round& r);

    bool m_loseNextAck = false;
    // `nodeHead`: set when the node's head is below the checkpoint (see ForkFinder::find).
    // Only the writer that leads the head rolls back; the others wait for it (false).
    bool rollBack(const Checkpoint& cp, const QString& reason,
                  std::optional<std::uint64_t> nodeHead = std::nullopt);
    // Re-reads the node's chain id and genesis hash; ChainResetError if they changed.
    void verifyNodeIdentity();
    // The same for a chain id and genesis hash already read (the round's HeadCheck).
    void checkNodeIdentity(std::uint64_t chainId, const std::optional<chain::Hash32>& genesis);
    bool identityCheckDue() const;
    // The node is below the checkpoint: a hash that differs at its head proves a reorg
    // (rolled back now); the same hash means it is only lagging. Returns true on rollback.
    bool rollBackIfHeadDisagrees(const Checkpoint& cp, std::uint64_t head);
    // A failed round: counts it and sets the state, message and backoff.
    void noteNodeTrouble(IndexerStatus::State state, const QString& message);
    // `claim`: the backfill range the batch completes, if it is one.
    Acceptance apply(const std::optional<Checkpoint>& cp, const wire::WireBatch& batch,
                     const std::optional<RangeClaim>& claim);
    // Why the batch is not the one this round asked for (another source or config, another
    // first block, no headers); empty if it is.
    QString refusal(const wire::WireBatch& batch, std::uint64_t expectedFromBlock);
    // The batch's headers that link on `below` (the checkpoint the batch continues, if it
    // does) and on each other; false when the first does not link and the checkpoint was
    // rolled back.
    bool linkHeaders(const Checkpoint* below, const wire::WireBatch& batch,
                     const std::optional<RangeClaim>& claim, VerifiedBatch& verified);
    // `above` does not build on the checkpoint: a reorg (rolled back) or the node's own
    // inconsistency (thrown).
    void rollBackOrRefuse(const Checkpoint& cp, const chain::BlockHeader& above);
    // The batch's logs up to `last`, each checked against its request (BatchLogCheck.h).
    void keepCheckedLogs(const wire::WireBatch& batch, std::uint64_t last, VerifiedBatch& verified);
    void countCommitted(const CommitStats& stats, const VerifiedBatch& verified,
                        const wire::WireBatch& batch);
    void onFetchFailure(const RangeClaim& range, const QString& error);
    // With factories: keeps the batch's logs that are the source's and records the children
    // it creates, or refuses it (false, `result` saying why) when it was fetched without a
    // child it needed; the fetch threads then know that child.
    bool admitChildren(VerifiedBatch& verified, const wire::WireBatch& batch, std::uint64_t last,
                       Acceptance& result);
    // At the head: re-fetch the logs of the last blocks and look for stored logs that are
    // now absent. Returns true if it rolled back.
    bool recheckForAbsence(const Checkpoint& cp);
    // The round's wait for the batch starting at `from`, renewing the ranges' leases
    // meanwhile; nullopt after the fetch timeout or a stop.
    std::optional<wire::FetchOutcome> takeBatch(std::uint64_t from);
    // Nothing to do this round but wait for other writers (their ranges, or their lead).
    const IndexerStatus& standBy(const std::optional<Checkpoint>& cp, std::uint64_t head,
                                 const QString& why);
    void dropPlan();
    // At the head: synced, unless an added contract is still being backfilled.
    const IndexerStatus& synced();
    // Whether this writer leads the head now (Coordination::leadsHead), saying so on change.
    bool leads();
    wire::FetchPool& pool();
    // The addresses whose logs are the source's now: contracts, factories, children stored.
    QList<chain::Address> watchedAddresses() const;
    // The contracts and factories this run names beyond the checkpoint's set (refused when
    // it leaves one out); the head goes on with the checkpoint's set.
    QList<AddedSource> splitAddedContracts(const Checkpoint& cp);
    // Records the added sources not recorded yet, each from its start block.
    void prepareSources(const Checkpoint& cp, const QList<AddedSource>& added,
                        std::uint64_t fromBlock);
    void startSource(const Checkpoint& cp, const chain::Address& address,
                     std::optional<std::uint64_t> fromBlock, const QString& factoryRule);
    // `factoryRule`: an added factory's (empty: a plain contract).
    void addSource(const chain::Address& address, std::optional<std::uint64_t> fromBlock,
                   const QString& factoryRule);
    // One batch of an added source's backfill toward `cp` (or its joining); true if it did
    // any work.
    bool backfillSources(const Checkpoint& cp);
    // An added source joined the set: the head fetches it (and a factory's children) now.
    void joined(const AddedSource& source);
    // After the store is open: the children stored, for the receiver and the fetch threads.
    void prepareChildren();
    // A rollback to `fork` (-1: nothing left) takes the children created above it.
    void forgetChildrenAbove(qint64 fork);

    IndexerConfig m_config;
    // The configuration as constructed. prepare() narrows m_config (the added contracts go
    // to their own backfill, the start block is the checkpoint's): an attempt the node
    // failed midway is tried again from this, or the retry would find nothing added.
    const IndexerConfig m_given;
    IndexStore& m_store;
    rpc::EthClient& m_eth;
    bool m_prepared = false;
    std::uint64_t m_chainId = 0;
    std::unique_ptr<ForkFinder> m_forkFinder;
    std::unique_ptr<wire::FetchPool> m_pool;
    std::unique_ptr<HeadCheckAhead> m_headAhead; // a backfill's next head check (its thread)
    std::shared_ptr<const abi::EventRegistry> m_registry;
    QSet<chain::Address> m_own; // the contracts and the factories: their logs are always ours
    // With factories: their children as the receiver knows them, and as the fetch threads do.
    std::unique_ptr<SourceBackfill> m_sources; // contracts added to the environment
    std::unique_ptr<ChildBook> m_children;
    std::shared_ptr<wire::ChildDirectory> m_directory;
    QHash<std::uint64_t, int> m_rangeAttempts; // consecutive failures per range start
    bool m_recheckDue = true;                  // new data since the last absence check
    qint64 m_logsPerRange = fetch_window::kUnknownLogsPerRange; // in the last range taken
    std::uint64_t m_rangeBlocks = 0; // blocks per range now (0: --batch-size, at the start)
    std::optional<std::uint64_t> m_nextRangeBlocks; // what the last range suggests
    QElapsedTimer m_sinceRecheck;
    IndexerStatus m_status;
    QElapsedTimer m_sinceVerifiedWrite;
    chain::Hash32 m_genesis;            // the node's genesis when prepared
    QElapsedTimer m_sinceIdentityCheck; // chain id + genesis last confirmed
    bool m_identityCheckDue = false;    // after an outage: the node may have been swapped
    int m_troubleStreak = 0;            // consecutive rounds the node was inconsistent
    bool m_led = false;                 // this writer led the head last time it asked
    QSet<std::uint64_t> m_takenOver;    // ranges whose takeover was reported
};

} // namespace forkscope::indexer
