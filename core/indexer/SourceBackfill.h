#pragma once

#include "AddedSource.h"
#include "IndexStore.h"
#include "IndexerConfig.h"
#include "IndexerStatus.h"

#include "VerifiedBatch.h"
#include "abi/EventRegistry.h"
#include "rpc/EthClient.h"
#include "wire/ChildDirectory.h"
#include "wire/ReplyCapacity.h"

#include <functional>
#include <memory>
#include <optional>

namespace forkscope::indexer {

// The backfill of contracts and factories added to an environment that was already indexed
// (docs/sources.md). It runs on the indexer's thread, one batch per round next to the
// round at the head, so the head keeps being followed for the contracts already indexed:
//   1. the blocks it fills are the environment's own, already stored at or below its
//      checkpoint: their headers are fetched and each must carry the stored hash (another
//      hash means the chain moved under the batch; the head's check rolls back first);
//   2. the added contract's logs of those blocks are fetched and each checked against its
//      request and its header, as the head's are; an added factory's with those of its
//      children created up to the batch's end, each from its creation block (the receiver
//      holds the batch to the creation events its own logs hold, as the head's: ChildBook);
//   3. its rows (and the children found) and its own checkpoint commit in one transaction
//      (IndexStore::commitSource).
// When its checkpoint is the environment's, it joins the contract set in one transaction;
// a rollback moves its checkpoint back with the environment's and takes the children it
// created (the stores do it).
class SourceBackfill
{
public:
    SourceBackfill(const IndexerConfig& config, IndexStore& store, rpc::EthClient& eth,
                   std::shared_ptr<const abi::EventRegistry> registry);

    // Where the backfill of `address` starts: `fromBlock` when given (not before the
    // environment's `startBlock`), else the block the contract was deployed in, found by
    // binary search on eth_getCode between `startBlock` and `top` (the environment's
    // checkpoint or the node's head), or earlier where the node no longer serves the state.
    // Throws IndexerError when it has no code at `top`.
    std::uint64_t startBlockFor(const chain::Address& address, std::uint64_t startBlock,
                                std::uint64_t top, std::optional<std::uint64_t> fromBlock);

    struct Outcome
    {
        bool worked = false;               // a batch committed (or a source joined)
        std::optional<AddedSource> joined; // the source that joined this round
    };
    // One batch of the first pending source toward `cp`, the environment's checkpoint just
    // confirmed on the node, or its joining once it reached `cp`; `joinedSet` is the
    // environment's contract set with it (contractSetText). Throws what the store throws;
    // RpcException and NodeInconsistentError when the node did not answer consistently;
    // IndexerError when an added factory's stored rule does not read.
    Outcome step(const Checkpoint& cp, const std::function<QString(const AddedSource&)>& joinedSet,
                 IndexerStatus& status);

private:
    // Whether `address` has code at `block`, or the node answers an error for that block's
    // state (a node that keeps only recent state).
    bool codeOrUnknownAt(const chain::Address& address, std::uint64_t block);
    // The batch of `source` from `from` toward `cp`, fetched and checked; nullopt when the
    // chain moved under the stored blocks (the head's check goes first) or nothing came.
    std::optional<VerifiedBatch> fetchBatch(const AddedSource& source, std::uint64_t from,
                                            std::uint64_t to, const Checkpoint& cp,
                                            IndexerStatus& status);
    // An added factory's batch: keeps the logs that are its own and its children's and
    // records the children it creates; false when it was fetched without a child it needed
    // (the scan then knows the child, and the batch is fetched again).
    bool admitChildren(VerifiedBatch& batch, const AddedSource& source,
                       const QList<chain::Address>& fetched, IndexerStatus& status);
    // The children the factory `source` scans for, reused across its batches while the
    // blocks it scanned are still the stored ones.
    std::shared_ptr<wire::ChildDirectory> directoryFor(const AddedSource& source,
                                                       std::uint64_t from, const Checkpoint& cp);

    const IndexerConfig& m_config;
    IndexStore& m_store;
    rpc::EthClient& m_eth;
    std::shared_ptr<const abi::EventRegistry> m_registry;
    std::uint64_t m_rangeBlocks = 0; // 0: --batch-size
    // An added factory's scan (directoryFor): whose, the block it expects next, and the
    // environment's checkpoint it scanned up to.
    std::shared_ptr<wire::ChildDirectory> m_directory;
    chain::Address m_directoryOf;
    std::uint64_t m_directoryNext = 0;
    Checkpoint m_directoryCp;
    QList<wire::ChildCreation> m_factoryChildren; // the stored children of m_directoryOf
    // What the node's replies showed of a silent cap, across batches (wire::ReplyCapacity).
    std::shared_ptr<wire::ReplyCapacity> m_capacity = std::make_shared<wire::ReplyCapacity>();
};

} // namespace forkscope::indexer
