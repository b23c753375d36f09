#pragma once

#include "AuditResult.h"
#include "AuditTarget.h"
#include "BlockLogsProof.h"

#include <functional>

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
}

namespace forkscope::audit {

// Compares the stored data of one environment with a node, block by block, in bounded
// chunks (never the whole range in memory). For every block of the range:
//   - its header is fetched and must link to the one below (parentHash): the node is not
//     trusted blindly; the stored hash must be the node's (else the chain moved on:
//     "reorged at N", not a hole, and the blocks from there are not compared);
//   - the node's logs of the checkpoint's contracts (eth_getLogs over the chunk, checked
//     against the request and the headers) are compared per block with the stored `logs`
//     and `transfer_events` rows, by log index;
//   - a block whose logsBloom admits one of the contracts but has no stored log is
//     suspect: all its logs are fetched by blockHash (EIP-234) and their bloom must be the
//     header's; logs of ours there are a hole, none a bloom false positive (counted);
//   - every stored log must be in its block's bloom (address and topics): a row the bloom
//     rules out is corrupt or tampered;
//   - a stored log the node's range answer lacks is asked for again by blockHash before
//     the stored row is called extra (a truncating node must not condemn good data).
// Reads only the contract's read surface (SQLite or PostgreSQL alike): the database is
// opened by the caller, read-only for `forkscope verify`.
// Throws AuditError when the node cannot serve as a reference (unreachable, headers that do
// not link, logs its own headers rule out); RpcException never escapes.
class StoredDataAuditor
{
public:
    StoredDataAuditor(store::ContractReader& reader, rpc::EthClient& eth)
        : m_reader(reader), m_eth(eth)
    {
    }

    // Blocks per round: one batch of headers, one eth_getLogs (split on a provider's
    // limit), one read of each table.
    void setChunkBlocks(std::uint64_t blocks) { m_chunk = std::max<std::uint64_t>(1, blocks); }

    // With a proof, every block that holds (or whose bloom admits) a log of ours is compared
    // with the proof's logs instead of eth_getLogs' (not owned; nullptr: bloom and counts).
    void setProof(BlockLogsProof* proof) { m_proof = proof; }

    AuditResult audit(const AuditTarget& target, const AuditRange& range);

    // Called after each chunk with the result so far (progress for a long audit).
    std::function<void(const AuditResult&, std::uint64_t checkedTo)> onChunk;

private:
    store::ContractReader& m_reader;
    rpc::EthClient& m_eth;
    std::uint64_t m_chunk = 100;
    BlockLogsProof* m_proof = nullptr;
};

} // namespace forkscope::audit
