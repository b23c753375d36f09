#include "PartedLogReader.h"
#include "ProviderLimit.h"
#include "rpc/EthClient.h"
#include "rpc/RpcError.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace forkscope::wire {

namespace {
struct ReaderListsLowered
{
};
} // namespace

std::uint64_t blocksPerLogsCall(std::uint64_t blocks, qint64 logsPerCall, double logsPerBlock)
{
    std::uint64_t perCall = blocks;
    if (logsPerCall > 0 && logsPerBlock < 0)
        perCall = 1; // unknown: as many parts as a range may have (below)
    else if (logsPerCall > 0 && logsPerBlock > 0)
        perCall =
            std::clamp<std::uint64_t>(std::uint64_t(double(logsPerCall) / logsPerBlock), 1, blocks);
    return std::max(perCall, (blocks + kMaxLogsCallsPerRange - 1) / kMaxLogsCallsPerRange);
}

PartedLogReader::PartedLogReader(rpc::EthClient& eth, QList<chain::Address> contracts,
                                 qint64 logsPerCall)
    : m_eth(eth), m_contracts(std::move(contracts)), m_logsPerCall(std::max<qint64>(1, logsPerCall))
{
}

void PartedLogReader::check(const QList<chain::LogEntry>& logs, std::uint64_t from,
                            std::uint64_t to) const
{
    if (checkAnswer)
        checkAnswer(logs, from, to);
}

rpc::LogFilter PartedLogReader::filter(std::uint64_t from, std::uint64_t to) const
{
    rpc::LogFilter f = rpc::LogFilter::range(from, to, m_asked);
    f.topics = m_topics;
    return f;
}

QList<chain::LogEntry> PartedLogReader::readHalving(std::uint64_t from, std::uint64_t to)
{
    try {
        ++m_calls;
        QList<chain::LogEntry> logs = m_eth.getLogs(filter(from, to));
        check(logs, from, to);
        return logs;
    } catch (const rpc::RpcException& e) {
        if (e.error().kind == rpc::RpcError::Kind::Remote && m_asked.size() > 1)
            if (const auto limit = parseAddressLimit(e.error().message)) {
                m_addressesPerCall = limit->maxAddresses
                                         ? std::clamp<qsizetype>(qsizetype(*limit->maxAddresses), 1,
                                                                 m_asked.size() - 1)
                                         : std::max<qsizetype>(1, m_asked.size() / 2);
                throw ReaderListsLowered{};
            }
        if (!isRangeLimit(e.error()) || from == to)
            throw;
        const std::uint64_t mid = from + (to - from) / 2;
        QList<chain::LogEntry> logs = readHalving(from, mid);
        logs += readHalving(mid + 1, to);
        return logs;
    }
}

QList<chain::LogEntry> PartedLogReader::read(std::uint64_t from, std::uint64_t to)
{
    for (;;) {
        QList<chain::LogEntry> logs;
        try {
            for (qsizetype i = 0; i == 0 || i < m_contracts.size(); i += m_addressesPerCall) {
                m_asked = m_contracts.mid(i, m_addressesPerCall);
                logs += readParts(from, to);
            }
        } catch (const ReaderListsLowered&) {
            continue;
        }
        return logs;
    }
}

QList<chain::LogEntry> PartedLogReader::readParts(std::uint64_t from, std::uint64_t to)
{
    const std::uint64_t blocks = to - from + 1;
    const std::uint64_t perCall = blocksPerLogsCall(
        blocks, m_logsPerCall, m_blocksSeen == 0 ? -1 : double(m_logsSeen) / double(m_blocksSeen));
    QList<chain::LogEntry> logs;
    if (perCall >= blocks) {
        logs = readHalving(from, to);
    } else {
        struct Part
        {
            std::uint64_t from = 0;
            std::uint64_t to = 0;
            std::unique_ptr<rpc::RpcCall> call; // deleted (aborted) if never read
        };
        std::vector<Part> parts;
        for (std::uint64_t a = from; a <= to; a += perCall) {
            const std::uint64_t b = std::min(to, a + perCall - 1);
            parts.push_back({a, b, std::unique_ptr<rpc::RpcCall>(m_eth.requestLogs(filter(a, b)))});
        }
        for (Part& p : parts) {
            QList<chain::LogEntry> got;
            try {
                ++m_calls;
                got = m_eth.takeLogs(p.call.release());
            } catch (const rpc::RpcException& e) {
                if (!isRangeLimit(e.error()) && !parseAddressLimit(e.error().message))
                    throw;
                --m_calls; // counted again by readHalving
                logs += readHalving(p.from, p.to);
                continue;
            }
            check(got, p.from, p.to);
            logs += got;
        }
    }
    m_blocksSeen += blocks;
    m_logsSeen += std::uint64_t(logs.size());
    return logs;
}

} // namespace forkscope::wire
