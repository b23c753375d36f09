#pragma once

#include "Checkpoint.h"

#include <QString>
#include <functional>
#include <optional>

namespace forkscope::rpc {
class EthClient;
}

namespace forkscope::indexer {

// Where the stored branch and the node's branch part.
struct ForkPoint
{
    // The highest block both agree on; nullopt when they disagree all the way down to the
    // first indexed block (everything indexed must go).
    std::optional<std::uint64_t> number;
    chain::Hash32 hash;
};

// Walks back from the checkpoint comparing the node's hash with the stored hash until they
// match (docs/design.md, "Reorgs: the fork point and the one-transaction rollback"), at
// most maxDepth blocks. Headers are fetched in JSON-RPC batches. Throws DeepReorgError past
// maxDepth (nothing deleted), NodeBehindError when the node answers null for a block it
// should have.
class ForkFinder
{
public:
    // The stored hash of a block of the environment, nullopt when it is not indexed.
    using StoredHash = std::function<std::optional<chain::Hash32>(std::uint64_t)>;

    ForkFinder(rpc::EthClient& eth, StoredHash stored) : m_eth(eth), m_stored(std::move(stored)) {}

    // `nodeHead`: the node's head when it is below the checkpoint (a rollback with no new
    // block yet); the stored blocks above it are not on the node's chain, so the search
    // starts there instead of asking for blocks the node does not have.
    ForkPoint find(const Checkpoint& cp, std::uint64_t maxDepth,
                   std::optional<std::uint64_t> nodeHead = std::nullopt);

    std::optional<chain::Hash32> storedHash(std::uint64_t number) { return m_stored(number); }

private:
    rpc::EthClient& m_eth;
    StoredHash m_stored;
};

} // namespace forkscope::indexer
