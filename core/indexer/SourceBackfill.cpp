#include "SourceBackfill.h"
#include "BatchLogCheck.h"
#include "IndexerErrors.h"

#include <algorithm>

namespace forkscope::indexer {

SourceBackfill::SourceBackfill(const IndexerConfig& config, IndexStore& store, rpc::EthClient& eth,
                               std::shared_ptr<const abi::EventRegistry> registry)
    : m_config(config), m_store(store), m_eth(eth), m_registry(std::move(registry))
{
}

std::uint64_t SourceBackfill::startBlockFor(const chain::Address& address, std::uint64_t startBlock,
                                            std::uint64_t top,
                                            std::optional<std::uint64_t> fromBlock)
{
    if (fromBlock)
        return std::max(*fromBlock, startBlock);
    if (m_eth.codeAt(address, top).isEmpty())
        throw IndexerError(QStringLiteral("%1 has no code at block %2 on %3: not a contract "
                                          "there yet; check the address, or give its start "
                                          "block with --from-block")
                               .arg(address.toHex())
                               .arg(top)
                               .arg(m_eth.endpointText()));
    // The lowest block with code: the contract's deployment (or the environment's start,
    // when it was deployed before). Code does not vanish on a chain that only grows, except
    // by SELFDESTRUCT before Cancun: then this finds a later block, never an earlier one.
    std::uint64_t lo = startBlock, hi = top;
    if (!m_eth.codeAt(address, lo).isEmpty())
        return lo;
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (m_eth.codeAt(address, mid).isEmpty())
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

SourceBackfill::Outcome
SourceBackfill::step(const Checkpoint& cp,
                     const std::function<QString(const chain::Address&)>& joinedSet,
                     IndexerStatus& status)
{
    Outcome out;
    QList<AddedSource> pending;
    for (const AddedSource& s : m_store.addedSources())
        if (s.state == SourceState::Pending)
            pending.append(s);
    status.sourcesPending = int(pending.size());
    status.backfills.clear();
    for (const AddedSource& s : pending)
        status.backfills.append(
            {s.address.toHex(), s.startBlock,
             s.checkpoint ? std::optional(s.checkpoint->number) : std::nullopt});
    if (pending.isEmpty())
        return out;
    const AddedSource& source = pending.first();
    if (source.checkpoint && source.checkpoint->number == cp.number &&
        source.checkpoint->hash == cp.hash) {
        m_store.joinSource(source, cp, joinedSet(source.address));
        ++status.sourcesJoined;
        --status.sourcesPending;
        status.backfills.removeFirst();
        out.worked = true;
        out.joined = source.address;
        return out;
    }
    const std::uint64_t from = source.nextBlock();
    if (from > cp.number)
        return out; // the environment's checkpoint went back below it: wait for the head
    if (m_rangeBlocks == 0)
        m_rangeBlocks = std::max<std::uint64_t>(1, m_config.batchSize);
    const std::uint64_t to = std::min(cp.number, from + m_rangeBlocks - 1);

    // 1. The environment's blocks, as stored: the node must serve the same ones.
    const QList<std::optional<chain::BlockHeader>> headers = m_eth.blocksByNumber(from, to);
    VerifiedBatch batch;
    for (qsizetype i = 0; i < headers.size(); ++i) {
        const std::uint64_t n = from + std::uint64_t(i);
        if (!headers[i])
            throw NodeBehindError(
                QStringLiteral("node answered null for block %1 below its head").arg(n));
        const auto stored = m_store.storedHash(n);
        if (!stored || *stored != headers[i]->hash)
            return out; // the chain moved under the stored blocks: the head's check first
        if (i == 0 && source.checkpoint && headers[i]->parentHash != source.checkpoint->hash)
            return out;
        if (i > 0 && headers[i]->parentHash != batch.blocks.last().hash)
            throw NodeInconsistentError(
                QStringLiteral("node %1 serves block %2 that does not follow block %3")
                    .arg(m_eth.endpointText())
                    .arg(n)
                    .arg(n - 1));
        batch.blocks.append(*headers[i]);
    }
    if (std::uint64_t(batch.blocks.size()) != to - from + 1)
        throw NodeInconsistentError(QStringLiteral("node %1 answered %2 headers for blocks "
                                                   "%3-%4")
                                        .arg(m_eth.endpointText())
                                        .arg(batch.blocks.size())
                                        .arg(from)
                                        .arg(to));

    // 2. Its logs, each checked against the request and its header.
    batch.logs = m_eth.getLogs(rpc::LogFilter::range(from, to, {source.address}));
    if (std::uint64_t(batch.logs.size()) >= m_config.logCap && to > from) {
        m_rangeBlocks = std::max<std::uint64_t>(1, (to - from + 1) / 2);
        ++status.truncationHalvings;
        return out; // possibly cut by the provider: fetched again in halves
    }
    if (std::uint64_t(batch.logs.size()) >= m_config.logCap)
        throw NodeInconsistentError(
            QStringLiteral("node %1 answered %2 logs of %3 for block %4 alone, the result cap; "
                           "they may be truncated, nothing stored")
                .arg(m_eth.endpointText())
                .arg(batch.logs.size())
                .arg(source.address.toHex())
                .arg(from));
    const QSet<chain::Address> asked{source.address};
    const QString endpoint = m_eth.endpointText();
    for (const chain::LogEntry& log : batch.logs)
        checkBatchLog(log, from, to, batch.blocks, asked, endpoint);
    std::sort(batch.logs.begin(), batch.logs.end(),
              [](const auto& a, const auto& b) { return a.position() < b.position(); });
    for (qsizetype i = 1; i < batch.logs.size(); ++i)
        if (batch.logs[i].position() == batch.logs[i - 1].position())
            throw NodeInconsistentError(QStringLiteral("node %1 answered log %2 of block %3 twice")
                                            .arg(endpoint)
                                            .arg(batch.logs[i].logIndex)
                                            .arg(batch.logs[i].blockNumber));
    if (m_registry)
        for (const chain::LogEntry& log : batch.logs)
            batch.decodings.append(m_registry->decode(log));

    // 3. Its rows and its checkpoint, one transaction.
    const CommitStats stats = m_store.commitSource(batch, source);
    status.sourceLogsCommitted += stats.logs;
    status.transfersCommitted += stats.transfers;
    status.backfills.first().checkpoint = to;
    out.worked = true;
    return out;
}

} // namespace forkscope::indexer
