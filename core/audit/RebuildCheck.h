#pragma once

#include "AuditTarget.h"

#include <cstdint>

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
}

namespace forkscope::audit {

// What the check before a repair looked at.
struct RebuildCheck
{
    qint64 wrongBalances = 0;    // balances that were not the sum of their stored Transfers
    qint64 transfersChecked = 0; // their holders' stored Transfers below `from`, all the node's
};

// A repair from block F rebuilds every balance from the stored Transfers that remain below
// F. Where a balance is not the sum of its holder's stored Transfers, one of them was
// edited, and the rebuild trusts the Transfers: one edited below F would turn a right
// balance into a wrong one that nothing flags any more. So, before anything is changed,
// each such holder's stored Transfers below F are compared with the node's Transfer logs
// of that holder (eth_getLogs by contract and the holder's topic, blocks start..F - 1, in
// parts of kBlocksPerCheck): a Transfer edited, lost or forged there refuses the repair,
// naming the block to repair from instead. Works on either store (balances that are a view
// of the Transfers, as on PostgreSQL, never differ). Throws AuditError (BadRange when a
// lower block must be repaired, NodeUnavailable/NodeUntrusted for the node); nothing was
// changed then.
RebuildCheck checkRebuildBelow(store::ContractReader& reader, rpc::EthClient& eth,
                               const AuditTarget& target, std::uint64_t from);

// Holders checked one by one at most; more wrong balances than that are repaired from the
// start block, where nothing stored is trusted.
constexpr qint64 kMaxHoldersChecked = 256;
constexpr std::uint64_t kBlocksPerCheck = 10'000;

} // namespace forkscope::audit
