#pragma once

#include "ForeignAuditResult.h"
#include "ForeignComparison.h"

#include "audit/LinkedHeaders.h"
#include "chain/BlockHeader.h"
#include "chain/BloomBitsCache.h"
#include "chain/LogEntry.h"
#include "wire/FactorySource.h"
#include "wire/PartedLogReader.h"

#include <QHash>
#include <QSet>
#include <functional>

namespace forkscope::audit {
class BlockLogsProof;
}
namespace forkscope::rpc {
class EthClient;
}

namespace forkscope::foreign {

class ForeignTable;
class ForeignColumns;

// The blocks an audit covers. Without --to-block, `to` is the table's highest block, capped
// at the node's head minus the confirmations (`rowsAbove` then says rows were left out).
struct ForeignRange
{
    std::uint64_t from = 0;
    std::uint64_t to = 0;
    std::optional<std::uint64_t> rowsAbove;
};

// Another indexer's table against a node, block by block in chunks, with the proofs of
// `forkscope verify` (audit/StoredDataAuditor.h) turned outward:
//   - each chunk's headers are fetched and must link by parentHash;
//   - the contracts' Transfer logs (eth_getLogs over the chunk) must answer the request:
//     blocks asked, addresses asked, the header's hash, inside the header's logsBloom;
//   - a block whose bloom admits a contract's Transfer while nothing of it was found, or
//     that holds a row the range answer lacks, is fetched whole by hash and the bloom
//     recomputed from its logs must be the header's (a node that hides logs is named, not
//     believed); with a proof (--receipts), every block with rows, Transfers or such a
//     bloom is compared with the logs its receipts root proves instead;
//   - then compareForeignBlock: rows against the Transfers, by log index.
// The table is read one chunk of blocks at a time; the node in ranges. Throws
// audit::AuditError when the node cannot serve as the reference, ForeignError for the table.
class ForeignAuditor
{
public:
    ForeignAuditor(ForeignTable& table, rpc::EthClient& eth, QList<chain::Address> contracts);

    void setChunkBlocks(std::uint64_t blocks) { m_chunk = std::max<std::uint64_t>(1, blocks); }
    void setProof(audit::BlockLogsProof* proof) { m_proof = proof; }
    // A factory whose children are audited as contracts too, each from its creation event:
    // the events are read from block 0 up to the range's end, and those inside the range
    // are checked against the linked headers like any log.
    void setFactory(wire::FactorySource factory) { m_factory = std::move(factory); }
    // Rows one chunk may hold before the audit asks for a narrower range.
    static constexpr qsizetype kMaxRowsPerChunk = 200'000;

    // The range to audit: the flags when given, else the table's lowest..highest block;
    // never above the node's head minus `confirmations`. Throws ForeignError (BadQuery)
    // when there is nothing to audit, saying which flag to give.
    static ForeignRange resolveRange(ForeignTable& table, const QString& query,
                                     std::optional<std::uint64_t> from,
                                     std::optional<std::uint64_t> to, std::uint64_t head,
                                     std::uint64_t confirmations);

    // With `sumTransfers`, the node's Transfers from block 0 up to the range's end are summed
    // per holder for checkBalances (the blocks below the range read by eth_getLogs).
    ForeignAuditResult audit(const QString& query, const ForeignRange& range,
                             bool sumTransfers = false);
    // Each row of `balancesQuery` (contract, holder, balance) against the node's Transfers
    // summed by audit(), and each holder they give a balance the table lacks.
    void checkBalances(const QString& balancesQuery, ForeignAuditResult& r);

    // Called after each chunk with the result so far and the last block checked.
    std::function<void(const ForeignAuditResult&, std::uint64_t)> onChunk;

private:
    void chunk(const QString& query, const ForeignColumns& columns, std::uint64_t a,
               std::uint64_t b, ForeignAuditResult& r);
    QList<chain::LogEntry> logsByHash(const chain::BlockHeader& h, ForeignAuditResult& r);
    // The block's Transfers of ours, proven as the class comment says; `positions` gets
    // (tx hash, place among the transaction's logs) -> log index when the block's every log
    // was read.
    QList<chain::LogEntry>
    referenceLogs(const chain::BlockHeader& h, const QList<chain::LogEntry>& rangeLogs,
                  const QList<ForeignRow>& rows, ForeignAuditResult& r,
                  QHash<QPair<chain::Hash32, std::uint64_t>, std::uint64_t>* positions);
    void checkNodeLog(const chain::LogEntry& log, const chain::BlockHeader& h,
                      const QString& asked);
    bool isOurTransfer(const chain::LogEntry& log) const;
    void learnChildren(std::uint64_t to, ForeignAuditResult& r);
    // The contracts and the children created at or below `block`: what a range up to it asks.
    QList<chain::Address> askedThrough(std::uint64_t block) const;
    bool admitsOurTransfer(const chain::LogsBloom& bloom);
    void sumTransfer(const NodeTransfer& t);
    void sumBelow(std::uint64_t from, ForeignAuditResult& r);
    [[noreturn]] void untrusted(const QString& what) const;

    ForeignTable& m_table;
    rpc::EthClient& m_eth;
    QList<chain::Address> m_contractList;
    QSet<chain::Address> m_contracts; // with the factory's children
    QList<chain::Address> m_audited;  // the same, in order: the given contracts first
    std::optional<wire::FactorySource> m_factory;
    QHash<chain::Address, std::uint64_t> m_childBlock; // child -> its creation block
    QList<chain::LogEntry> m_creations;                // the factory's creation events
    audit::LinkedHeaders m_headers; // carried across chunks: the range is one linked chain
    // The contracts' Transfers of each chunk, its calls sized by the chunks before.
    wire::PartedLogReader m_logs;
    audit::BlockLogsProof* m_proof = nullptr;
    std::uint64_t m_chunk = 100;
    chain::BloomBitsCache m_bloomBits;
    bool m_sum = false;
    std::uint64_t m_summedTo = 0;
    // (contract, holder) -> (received, sent), from the node's Transfers.
    QHash<QPair<chain::Address, chain::Address>, std::pair<chain::U256, chain::U256>> m_sums;
};

} // namespace forkscope::foreign
