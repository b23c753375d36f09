#pragma once

#include "AuditResult.h"
#include "AuditTarget.h"
#include "BlockLogsProof.h"

#include "chain/Address.h"

#include <QHash>
#include <functional>

namespace forkscope::abi {
class EventRegistry;
}
namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
}

namespace forkscope::audit {

class TransferSums;

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
//     the stored row is called extra (a truncating node must not condemn good data);
//   - every column a log determines is compared with the node's log: the `logs` row's
//     address, topics, data and tx_hash, the `transfer_events` row's contract, parties and
//     value, and (with the ABI) event_name and args_json;
//   - the `blocks` row's hash, parent_hash and timestamp are the header's. A hash that is
//     not the node's while the stored rows above link to the node's block is an edited row
//     (a hole), not a reorg;
// and then, over the whole checkpoint whatever the range, every token_balances row is the
// sum of its holder's stored Transfers (pages of rows; BalanceAudit.h), and, when asked,
// the token's balanceOf(holder) at the checkpoint.
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

    // The ABI the environment was indexed with (not owned; nullptr: event_name and
    // args_json are not compared, and the result says so when decoded logs are stored).
    void setAbi(const abi::EventRegistry* registry) { m_abi = registry; }

    // Also compare each balance with the token's balanceOf(holder) at the checkpoint.
    void setBalanceOf(bool ask) { m_balanceOf = ask; }

    // Transfers and balances read per query (TransferSums::kRowsPerPage); for tests, pages
    // small enough to cross on a small index.
    void setRowsPerPage(int rows) { m_rowsPerPage = rows; }

    AuditResult audit(const AuditTarget& target, const AuditRange& range);

    // Called after each chunk with the result so far (progress for a long audit).
    std::function<void(const AuditResult&, std::uint64_t checkedTo)> onChunk;

private:
    // The children the node's factories created from the start block up to `to`.
    QHash<chain::Address, std::uint64_t> nodeChildren(const AuditTarget& target, std::uint64_t to);
    // After the walk: every balance against the sum of its stored Transfers (those of the
    // blocks the walk did not read, [start, range.from) and [walked, checkpoint], read here).
    void checkBalancesOf(const AuditTarget& target, const AuditRange& range, std::uint64_t walked,
                         TransferSums& sums, AuditResult& r);

    store::ContractReader& m_reader;
    rpc::EthClient& m_eth;
    std::uint64_t m_chunk = 100;
    BlockLogsProof* m_proof = nullptr;
    const abi::EventRegistry* m_abi = nullptr;
    bool m_balanceOf = false;
    int m_rowsPerPage = 0; // 0: TransferSums' own
};

} // namespace forkscope::audit
