#pragma once

#include "chain/Hash32.h"

#include <QString>
#include <cstdint>

namespace forkscope::indexer {

// A verifiable claim: every block from startBlock to `number` has been processed, without
// gap, on the branch whose block `number` has hash `hash`.
struct Checkpoint
{
    std::uint64_t number = 0;
    chain::Hash32 hash;
    std::uint64_t startBlock = 0;
    QString policyVersion;
    int generation = 0;
    QString verifiedAt; // when the hash was last confirmed against the node (UTC ISO)
};

} // namespace forkscope::indexer
