#pragma once

#include "chain/Address.h"
#include "chain/LogEntry.h"

#include <QList>
#include <functional>

namespace forkscope::rpc {
class EthClient;
struct LogFilter;
} // namespace forkscope::rpc

namespace forkscope::wire {

// How many blocks each eth_getLogs call of a `blocks`-long range asks for: about
// `logsPerCall` logs each by `logsPerBlock` seen so far (negative: nothing seen yet, as many
// calls as allowed; 0: no logs seen, one call), never more than kMaxLogsCallsPerRange
// calls. `logsPerCall` 0: one call.
constexpr std::uint64_t kMaxLogsCallsPerRange = 4;
std::uint64_t blocksPerLogsCall(std::uint64_t blocks, qint64 logsPerCall, double logsPerBlock);

// The contracts' logs of one block range after another, each range asked in eth_getLogs
// calls of about `logsPerCall` logs, sized by the logs per block seen in the ranges before
// (the first range in kMaxLogsCallsPerRange parts by blocks), all sent before the first is read. A
// node's cost per call grows faster than its logs: anvil served the 100k workload's logs
// with 0.29 s of CPU in calls of 1,275 logs and 0.9 s in calls of 5,100 (bench/README.md);
// read 100 blocks per call, `forkscope verify` cost anvil more CPU than itself. A call that
// meets a range limit (announced by the provider, or a reply over the client's cap) is
// asked again in halves, down to one block; any other error is the node's, thrown as
// rpc::RpcException. For the readers that check a whole range at a time (verify, the
// invariant check); the indexer's fetch threads have LogFetcher, which also proves each
// answer complete.
class PartedLogReader
{
public:
    PartedLogReader(rpc::EthClient& eth, QList<chain::Address> contracts,
                    qint64 logsPerCall = 1000);

    // Each call's answer with the blocks it asked for, before it is used: a reader that
    // must not trust the node checks the answer against its request here (and throws).
    std::function<void(const QList<chain::LogEntry>&, std::uint64_t from, std::uint64_t to)>
        checkAnswer;

    // Addresses beyond what one filter takes (kDefaultAddressesPerCall, or less once a
    // provider announced less: parseAddressLimit) are asked in lists one after the other.
    QList<chain::LogEntry> read(std::uint64_t from, std::uint64_t to);

    // The addresses asked for from now on (a factory's children change from chunk to chunk).
    void setContracts(QList<chain::Address> contracts) { m_contracts = std::move(contracts); }
    static constexpr qsizetype kDefaultAddressesPerCall = 1000;

    // Asks only for logs with these topics (per position, as LogFilter::topics).
    void setTopics(QList<QList<chain::Hash32>> topics) { m_topics = std::move(topics); }

    qint64 calls() const { return m_calls; }

private:
    QList<chain::LogEntry> readHalving(std::uint64_t from, std::uint64_t to);
    // read() of the addresses in m_asked.
    QList<chain::LogEntry> readParts(std::uint64_t from, std::uint64_t to);
    void check(const QList<chain::LogEntry>& logs, std::uint64_t from, std::uint64_t to) const;
    rpc::LogFilter filter(std::uint64_t from, std::uint64_t to) const;

    rpc::EthClient& m_eth;
    QList<chain::Address> m_contracts;
    QList<chain::Address> m_asked; // the list of m_contracts being asked
    qsizetype m_addressesPerCall = kDefaultAddressesPerCall;
    QList<QList<chain::Hash32>> m_topics;
    qint64 m_logsPerCall;
    std::uint64_t m_blocksSeen = 0;
    std::uint64_t m_logsSeen = 0;
    qint64 m_calls = 0;
};

} // namespace forkscope::wire
