#pragma once

#include "CompletenessStats.h"
#include "ReplyCapacity.h"
#include "chain/Address.h"
#include "chain/BlockHeader.h"
#include "chain/BloomBitsCache.h"
#include "chain/LogEntry.h"

#include <QList>
#include <QSet>
#include <QString>
#include <memory>
#include <optional>

namespace forkscope::rpc {
class EthClient;
}

namespace forkscope::wire {

// Checks that an eth_getLogs result holds every log of its range, against what the headers
// commit to (docs/design.md, "Completeness is an invariant": not a flag; absence of a log
// is suspicious). A provider that drops or truncates logs without an error is common (geth
// #21770, nethermind #1980); the header is bound to the block hash, so:
//   - recount: the result's highest block with logs is fetched again, whole, by its hash
//     (EIP-234); a shortfall means the result was cut in the middle of that block;
//   - bloom: a block whose bloom admits one of our contracts but came back with no log is
//     fetched whole by hash: logs of ours there mean the range result was truncated; none,
//     with the block's logs hashing to the header's bloom, is a false positive (common);
//   - either way, a block whose every log does not reproduce the header's bloom is proof
//     that the provider hides logs of it, however consistently it lies: a
//     SuspectedTruncationError naming the node and the block, nothing committed;
//   - receipts (opt-in): each block with logs of ours, or whose bloom admits one, is proven
//     against its receipts root (core/proof): a log the result omits, adds or alters is
//     named with the block and the difference, and nothing from the batch is committed.
class CompletenessCheck
{
public:
    struct Verdict
    {
        // The first block found short: the caller fetches a smaller range (or, for a
        // single block, takes `wholeBlock`, the block's logs of ours by its hash).
        std::optional<std::uint64_t> shortBlock;
        QString kind; // "bloom", "recount" or "receipts"
        std::optional<QList<chain::LogEntry>> wholeBlock;
        // The by-hash reply behind `wholeBlock` may itself have been cut by a silent cap
        // (ReplyCapacity): it must be settled before it is taken.
        bool wholeBlockMayBeCut = false;
    };

    // `capacity`: the node's replies as a silent cap is judged by (null: not judged).
    CompletenessCheck(rpc::EthClient& eth, QList<chain::Address> contracts,
                      CompletenessPolicy policy, std::shared_ptr<ReplyCapacity> capacity = {})
        : m_eth(eth), m_policy(policy), m_capacity(std::move(capacity))
    {
        setContracts(std::move(contracts));
    }

    // The contracts a range's logs are of: a source's children change from range to range.
    void setContracts(QList<chain::Address> contracts)
    {
        m_contracts = std::move(contracts);
        m_contractSet = QSet<chain::Address>(m_contracts.cbegin(), m_contracts.cend());
    }

    // `logs`: the range's result (any order), `headers`: the range's headers, in order.
    // `settled`: blocks whose logs settle() already proved, which need no other proof.
    // Throws SuspectedTruncationError (proof of hidden logs), ReplyMismatchError,
    // rpc::RpcException.
    Verdict check(const QList<chain::LogEntry>& logs, const QList<chain::BlockHeader>& headers,
                  CompletenessStats& stats, const QSet<std::uint64_t>& settled = {});

    // One block whose reply `got` (its logs of ours) may have been cut by a silent cap:
    // `got` itself once a larger reply shows the cap is above it (the block's every log by
    // its hash, then every log of wider windows around it, up to `head`), else the block's
    // logs of ours as its receipts prove them (ReplyCapacity.h). Throws
    // SuspectedTruncationError when no proof is to be had.
    QList<chain::LogEntry> settle(const chain::BlockHeader& header,
                                  const QList<chain::LogEntry>& got, std::uint64_t head,
                                  CompletenessStats& stats);

private:
    // The block's every log, by its hash, checked against the header's bloom.
    QList<chain::LogEntry> wholeBlock(const chain::BlockHeader& header);
    // --verify receipts: the block's logs of ours as its receipts prove them (receipts
    // root recomputed, header hash recomputed); throws SuspectedTruncationError when the
    // node's receipts or header do not prove out.
    QList<chain::LogEntry> provenByReceipts(const chain::BlockHeader& header);
    QList<chain::LogEntry> ours(const QList<chain::LogEntry>& logs) const;
    bool bloomAdmitsOurs(const chain::BlockHeader& header) const;
    // Whether a reply of `logs` may have been cut by a silent cap (counted as seen).
    bool mayBeCut(qsizetype logs) const { return m_capacity && m_capacity->mayBeCut(logs); }
    // Whether a reply larger than `got` (`got` logs of ours in block `header`) comes back
    // for a wider query: the block's every log, then windows of blocks around it.
    bool largerReplyAbove(const chain::BlockHeader& header, const QList<chain::LogEntry>& got,
                          std::uint64_t head);

    // How far either side of a block the widest window reaches (31 blocks: five calls).
    static constexpr std::uint64_t kWidestHalfWindow = 31;

    rpc::EthClient& m_eth;
    QList<chain::Address> m_contracts;
    QSet<chain::Address> m_contractSet; // the same, to look a log's address up in
    CompletenessPolicy m_policy;
    std::shared_ptr<ReplyCapacity> m_capacity;
    mutable chain::BloomBitsCache m_bloomBits; // a memo of Keccak hashes
};

} // namespace forkscope::wire
