#pragma once

#include "ForeignFinding.h"
#include "ForeignRow.h"

#include <QList>

namespace forkscope::foreign {

// A Transfer of the canonical chain, as the node's proven logs give it.
struct NodeTransfer
{
    std::uint64_t logIndex = 0;
    chain::Hash32 txHash;
    chain::Address contract;
    chain::Address from;
    chain::Address to;
    chain::U256 value;
};

// One block's rows against its canonical Transfers, by log index: a row whose block_hash (or
// block_hash_prefix) is not `canonicalHash`'s is orphaned (and compared no further); several rows
// of one log index are duplicated; a row with no Transfer at its log index (or no log index: a
// tx_position that names no log) is extra; a Transfer with no row is missing; a row whose contract,
// tx_hash, from, to or value is not its Transfer's is altered. Pure: no node, no table.
QList<ForeignFinding> compareForeignBlock(std::uint64_t block, const chain::Hash32& canonicalHash,
                                          const QList<ForeignRow>& rows,
                                          const QList<NodeTransfer>& transfers);

} // namespace forkscope::foreign
