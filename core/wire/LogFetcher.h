#pragma once

#include "ChildDirectory.h"
#include "CompletenessCheck.h"
#include "PartedLogReader.h"
#include "ReplyCapacity.h"
#include "WireBatch.h"
#include "abi/EventRegistry.h"
#include "chain/Address.h"

#include <atomic>
#include <memory>

#include <QList>
#include <QSet>

namespace forkscope::rpc {
class EthClient;
class RpcCall;
} // namespace forkscope::rpc

namespace forkscope::wire {

struct FetchSpec
{
    WireContext context;
    QList<chain::Address> contracts;
    // A result of exactly this many logs is treated as possibly truncated (a silent cap):
    // the range is halved until the result comes back under it. 0 disables the check.
    std::uint64_t logCap = 10000;
    // The source's ABI; decoding happens here, on the fetch threads.
    std::shared_ptr<const abi::EventRegistry> registry;
    // What one batch's decoded arguments may add up to. Each log is bounded on its own
    // (abi::DecodeLimit), but a block of thousands of small hostile logs would still hold
    // gigabytes; past this, the batch ends before the block that passed it.
    qint64 decodeBudgetBytes = 64LL * 1024 * 1024;
    // Which completeness proofs each fetch runs (CompletenessCheck).
    CompletenessPolicy completeness;
    // What this node has shown of a silent cap (ReplyCapacity.h), shared by the pool's fetch
    // threads: a reply not below the largest it returned before is proven before it is
    // trusted. Off with logCap 0.
    std::shared_ptr<ReplyCapacity> capacity = std::make_shared<ReplyCapacity>();
    // About how many logs one eth_getLogs call asks for; 0 = one call per range. A node's
    // cost per call grows faster than its logs: anvil served the 100k workload's logs with
    // 0.29 s of CPU in calls of 1,275 logs, 0.9 s in calls of 5,100 and 1.7 s in calls of
    // 10,200 (bench/README.md). A range is split by the logs per block seen so far (shared
    // by the pool's fetch threads), into at most kMaxCallsPerRange calls sent together.
    // Before any range has been seen (logsPerBlock < 0) a range is split into that many
    // parts by blocks: the first ranges are what the committing thread waits for at the
    // start, and asking each as one call of thousands of logs cost the 100k sync about
    // 0.1 s and 15 MiB of peak memory (bench/README.md); on a sparse chain it costs at most
    // three more calls per fetch thread, once.
    qint64 logsPerCall = 1000;
    // The children of the source's factories (their addresses are in `contracts`): each range
    // is fetched with every child created up to its end (ChildDirectory.h). Null: no factory.
    std::shared_ptr<ChildDirectory> children;
    // At most this many addresses in one eth_getLogs filter, shared by the pool's fetch
    // threads: geth's and Erigon's default limit, lowered when a provider announces less
    // (parseAddressLimit).
    std::shared_ptr<std::atomic<qint64>> addressesPerCall =
        std::make_shared<std::atomic<qint64>>(kDefaultAddressesPerCall);
    static constexpr qint64 kDefaultAddressesPerCall = 1000;
    std::shared_ptr<std::atomic<double>> logsPerBlock = std::make_shared<std::atomic<double>>(-1);
    static constexpr std::uint64_t kMaxCallsPerRange = kMaxLogsCallsPerRange;
};

// The sender half of the wire (docs/design.md, "The wire: the receiver owns the cursor"):
// stateless. Given where the receiver expects the
// next batch to start, it fetches logs and headers and returns a complete WireBatch,
// lowering toBlock when a provider limit (announced or silent) forces a smaller range.
// Blocking; each fetch thread owns its own LogFetcher and EthClient.
class LogFetcher
{
public:
    LogFetcher(rpc::EthClient& eth, FetchSpec spec)
        : m_eth(eth), m_spec(std::move(spec)), m_addresses(m_spec.contracts),
          m_check(eth, m_spec.contracts, m_spec.completeness,
                  m_spec.logCap > 0 ? m_spec.capacity : nullptr)
    {
    }

    // Throws SuspectedTruncationError, rpc::RpcException (node trouble, never a reorg).
    WireBatch fetch(std::uint64_t fromBlock, std::uint64_t toBlock, std::uint64_t latestBlock);

    const FetchSpec& spec() const { return m_spec; }

private:
    // Decodes batch.logs into batch.decodings within the budget (see FetchSpec).
    void decodeWithinBudget(WireBatch& batch) const;
    // The logs of [from, to] in one call, or in several sent together (FetchSpec::logsPerCall),
    // each checked as completeLogs checks one; `to` is lowered when a limit cut the range.
    // A block whose own reply may have been cut by a silent cap goes into `unproven`.
    QList<chain::LogEntry> rangeLogs(std::uint64_t from, std::uint64_t& to, WireBatch& batch,
                                     QSet<std::uint64_t>& unproven);
    // The same over every address of the range, in filters of at most addressesPerCall.
    QList<chain::LogEntry> completeLogs(std::uint64_t from, std::uint64_t& to, WireBatch& batch,
                                        QSet<std::uint64_t>& unproven);
    QList<chain::LogEntry> completeLogsOf(const QList<chain::Address>& addresses,
                                          std::uint64_t from, std::uint64_t& to, WireBatch& batch,
                                          QSet<std::uint64_t>& unproven);
    // A reply of `replied` logs over [from, to] that a silent cap may have cut: both halves
    // instead, each proven the same way; halves holding more than `replied` prove the cut.
    QList<chain::LogEntry> splitLogs(std::uint64_t from, std::uint64_t& to, qsizetype replied,
                                     WireBatch& batch, QSet<std::uint64_t>& unproven);
    // Whether the node's reply to a wider query (the same range and as many blocks before
    // it) holds more logs than `logs`, the reply for [from, to], and the same over [from, to]:
    // a silent cap is then above this reply's size, which is proven whole without splitting
    // its range. On a chain whose ranges return about the same number of logs, one such
    // proof raises the largest reply seen above them all.
    bool provenByWiderReply(const QList<chain::Address>& addresses, std::uint64_t from,
                            std::uint64_t to, qsizetype logs, WireBatch& batch);
    // A reply of this size may be a silently capped one (exactly --log-cap, or not below the
    // largest reply the node returned before); it is counted as seen.
    bool mayBeCapped(qsizetype logs) const;
    // The logs of the `unproven` blocks, each proven whole or replaced by its proven logs
    // (CompletenessCheck::settle); throws SuspectedTruncationError when one cannot be.
    // A block that cannot be proven ends the range before it (or, first in it, throws).
    void settleUnproven(QList<chain::LogEntry>& logs, const QSet<std::uint64_t>& unproven,
                        WireBatch& batch);

    // The headers of [from, to] up to the first the node has not reached, read from `sent`
    // (asked for [from, to] or more before the logs); `to` is lowered when the reply is over
    // the cap and they are asked again, fewer at a time.
    QList<chain::BlockHeader> headers(std::uint64_t from, std::uint64_t& to,
                                      std::unique_ptr<rpc::RpcCall> sent);

    rpc::EthClient& m_eth;
    FetchSpec m_spec;
    QList<chain::Address> m_addresses; // of the range being fetched: contracts and children
    CompletenessCheck m_check;
};

} // namespace forkscope::wire
