#include "StoredDataAuditor.h"
#include "AuditError.h"
#include "AuditRun.h"
#include "BalanceAudit.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "wire/PartedLogReader.h"

#include <algorithm>

namespace forkscope::audit {

AuditResult StoredDataAuditor::audit(const AuditTarget& target, const AuditRange& range)
{
    AuditResult r;
    r.environmentId = target.environment.id;
    r.chainId = target.environment.chainId;
    r.node = m_eth.endpointText();
    r.from = range.from;
    r.to = range.to;
    const auto snapshot = m_reader.snapshot();
    if (m_proof)
        r.proofName = m_proof->name();
    TransferSums sums;
    if (m_rowsPerPage > 0)
        sums.setRowsPerPage(m_rowsPerPage);
    AuditRun run(m_reader, m_eth, target, r, m_proof);
    run.abi = m_abi;
    run.sums = &sums;
    std::uint64_t a = range.from;
    // The blocks whose transfers the walk summed: [range.from, walked).
    std::uint64_t walked = range.from;
    try {
        if (!target.factories.isEmpty())
            run.nodeChildren = nodeChildren(target, range.to);
        for (; a <= range.to; a += m_chunk) {
            const std::uint64_t b = std::min(range.to, a + m_chunk - 1);
            const bool onChain = run.chunk(a, b);
            walked = onChain ? b + 1 : *r.reorgedAt;
            if (onChunk)
                onChunk(r, onChain ? b : *r.reorgedAt - 1);
            if (!onChain)
                break;
            if (b == range.to)
                break; // a + m_chunk could wrap past 2^64 at the very top
        }
    } catch (const rpc::RpcException& e) {
        throw AuditError(AuditError::Kind::NodeUnavailable,
                         QStringLiteral("node %1 did not answer while blocks %2..%3 were checked "
                                        "(%4); nothing was concluded about them, run verify "
                                        "again")
                             .arg(r.node)
                             .arg(a)
                             .arg(std::min(range.to, a + m_chunk - 1))
                             .arg(e.error().toString()));
    }
    if (r.reorgedAt)
        r.reorgedBlocks = qint64(range.to - *r.reorgedAt + 1);
    checkBalancesOf(target, range, walked, sums, r);
    return r;
}

QHash<chain::Address, std::uint64_t> StoredDataAuditor::nodeChildren(const AuditTarget& target,
                                                                     std::uint64_t to)
{
    wire::PartedLogReader reader(m_eth, wire::factoryAddresses(target.factories));
    QList<chain::Hash32> topics;
    for (const wire::FactorySource& f : target.factories)
        if (!topics.contains(f.topic0()))
            topics.append(f.topic0());
    reader.setTopics({topics});
    const std::uint64_t from = target.checkpoint.startBlock;
    reader.checkAnswer = [&](const QList<chain::LogEntry>& logs, std::uint64_t a, std::uint64_t b) {
        for (const chain::LogEntry& log : logs)
            if (log.blockNumber < a || log.blockNumber > b)
                throw AuditError(AuditError::Kind::NodeUntrusted,
                                 QStringLiteral("node %1 answered eth_getLogs(%2..%3) with a log "
                                                "of block %4; it cannot serve as the reference")
                                     .arg(m_eth.endpointText())
                                     .arg(a)
                                     .arg(b)
                                     .arg(log.blockNumber));
    };
    QList<chain::LogEntry> logs = reader.read(from, to);
    std::sort(logs.begin(), logs.end(),
              [](const auto& x, const auto& y) { return x.position() < y.position(); });
    QHash<chain::Address, std::uint64_t> out;
    for (const wire::ChildCreation& c : wire::creationsIn(logs, target.factories))
        out.insert(c.child, c.blockNumber);
    return out;
}

void StoredDataAuditor::checkBalancesOf(const AuditTarget& target, const AuditRange& range,
                                        std::uint64_t walked, TransferSums& sums, AuditResult& r)
{
    // The balances are the checkpoint's, whatever range was compared with the node: the
    // transfers outside it are summed as stored.
    const QVariantList scope{target.environment.id, qint64(target.environment.chainId)};
    const indexer::Checkpoint& cp = target.checkpoint;
    if (range.from > cp.startBlock)
        sums.addStored(m_reader, scope, cp.startBlock, range.from - 1);
    if (walked <= cp.number)
        sums.addStored(m_reader, scope, walked, cp.number);
    r.transfersSummed = sums.transfers();
    BalanceOfAt at{&m_eth, cp.number, cp.hash};
    // On another branch the checkpoint's state is not the node's to ask.
    const bool ask = m_balanceOf && !r.reorgedAt;
    checkBalances(m_reader, scope, sums, r, ask ? &at : nullptr);
}

} // namespace forkscope::audit
