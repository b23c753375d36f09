#include "SourceBackfill.h"
#include "BatchLogCheck.h"
#include "IndexerErrors.h"
#include "SourceFetchSpec.h"
#include "wire/LogFetcher.h"

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

    // 1. Its logs and their blocks, fetched and proven complete as the head's are (the
    //    result cap, the bloom and recount checks, receipts when asked, a silent cap): the
    //    fetcher may shorten the range to what it could prove.
    wire::FetchSpec spec = sourceFetchSpec(m_config, m_registry);
    spec.contracts = {source.address};
    spec.capacity = m_capacity;
    wire::LogFetcher fetcher(m_eth, std::move(spec));
    wire::WireBatch fetched = fetcher.fetch(from, to, cp.number);
    status.truncationHalvings += fetched.halvings;
    status.completeness += fetched.completeness;
    if (fetched.headers.isEmpty())
        return out;

    // 2. The blocks are the environment's, as stored: the node must serve the same ones.
    VerifiedBatch batch;
    for (qsizetype i = 0; i < fetched.headers.size(); ++i) {
        const chain::BlockHeader& header = fetched.headers[i];
        const std::uint64_t n = from + std::uint64_t(i);
        if (header.number != n)
            throw NodeInconsistentError(QStringLiteral("node %1 answered block %2 for block %3")
                                            .arg(m_eth.endpointText())
                                            .arg(header.number)
                                            .arg(n));
        const auto stored = m_store.storedHash(n);
        if (!stored || *stored != header.hash)
            return out; // the chain moved under the stored blocks: the head's check first
        if (i == 0 && source.checkpoint && header.parentHash != source.checkpoint->hash)
            return out;
        if (i > 0 && header.parentHash != batch.blocks.last().hash)
            throw NodeInconsistentError(
                QStringLiteral("node %1 serves block %2 that does not follow block %3")
                    .arg(m_eth.endpointText())
                    .arg(n)
                    .arg(n - 1));
        batch.blocks.append(header);
    }
    const std::uint64_t last = batch.blocks.last().number;
    batch.logs = fetched.logs;
    batch.decodings = fetched.decodings;

    // 3. Each log checked against the request and its header.
    const QSet<chain::Address> asked{source.address};
    const QString endpoint = m_eth.endpointText();
    for (const chain::LogEntry& log : batch.logs)
        checkBatchLog(log, from, last, batch.blocks, asked, endpoint);
    std::sort(batch.logs.begin(), batch.logs.end(),
              [](const auto& a, const auto& b) { return a.position() < b.position(); });
    for (qsizetype i = 1; i < batch.logs.size(); ++i)
        if (batch.logs[i].position() == batch.logs[i - 1].position())
            throw NodeInconsistentError(QStringLiteral("node %1 answered log %2 of block %3 twice")
                                            .arg(endpoint)
                                            .arg(batch.logs[i].logIndex)
                                            .arg(batch.logs[i].blockNumber));
    if (m_registry && batch.decodings.size() != batch.logs.size()) {
        batch.decodings.clear();
        for (const chain::LogEntry& log : batch.logs)
            batch.decodings.append(m_registry->decode(log));
    }

    // 4. Its rows and its checkpoint, one transaction.
    const CommitStats stats = m_store.commitSource(batch, source);
    status.sourceLogsCommitted += stats.logs;
    status.transfersCommitted += stats.transfers;
    status.backfills.first().checkpoint = to;
    out.worked = true;
    return out;
}

} // namespace forkscope::indexer
