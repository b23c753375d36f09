#include "SourceBackfill.h"
#include "BatchLogCheck.h"
#include "ChildBook.h"
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
    // A block whose state the node no longer serves counts as one with code: the backfill
    // then starts earlier than needed (more blocks fetched), never after the deployment.
    std::uint64_t lo = startBlock, hi = top;
    if (codeOrUnknownAt(address, lo))
        return lo;
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (codeOrUnknownAt(address, mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

bool SourceBackfill::codeOrUnknownAt(const chain::Address& address, std::uint64_t block)
{
    try {
        return !m_eth.codeAt(address, block).isEmpty();
    } catch (const rpc::RpcException& e) {
        // The node answered with an error: a pruned node (geth's "missing trie node", anvil's
        // "BlockOutOfRangeError") keeps the state of recent blocks only. Not answering at all
        // says nothing of the block: that goes up, and the round is tried again.
        if (e.error().kind != rpc::RpcError::Kind::Remote)
            throw;
        return true;
    }
}

SourceBackfill::Outcome
SourceBackfill::step(const Checkpoint& cp,
                     const std::function<QString(const AddedSource&)>& joinedSet,
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
        m_store.joinSource(source, cp, joinedSet(source));
        ++status.sourcesJoined;
        --status.sourcesPending;
        status.backfills.removeFirst();
        out.worked = true;
        out.joined = source;
        return out;
    }
    const std::uint64_t from = source.nextBlock();
    if (from > cp.number)
        return out; // the environment's checkpoint went back below it: wait for the head
    if (m_rangeBlocks == 0)
        m_rangeBlocks = std::max<std::uint64_t>(1, m_config.batchSize);
    const std::uint64_t to = std::min(cp.number, from + m_rangeBlocks - 1);
    const std::optional<VerifiedBatch> batch = fetchBatch(source, from, to, cp, status);
    if (!batch)
        return out;

    // Its rows (a factory's children with theirs) and its checkpoint, one transaction.
    const CommitStats stats = m_store.commitSource(*batch, source);
    status.sourceLogsCommitted += stats.logs;
    status.transfersCommitted += stats.transfers;
    status.childrenFound += qint64(batch->children.size());
    status.backfills.first().checkpoint = batch->blocks.last().number;
    if (m_directory && m_directoryOf == source.address) {
        m_factoryChildren += batch->children;
        m_directoryNext = batch->blocks.last().number + 1;
    }
    out.worked = true;
    return out;
}

std::optional<VerifiedBatch> SourceBackfill::fetchBatch(const AddedSource& source,
                                                        std::uint64_t from, std::uint64_t to,
                                                        const Checkpoint& cp, IndexerStatus& status)
{
    // A factory's batch fetched without a child it needed is fetched again with it; a few
    // times at most in one round (each time the scan knows more), then the next round.
    for (int attempt = 0; attempt < 3; ++attempt) {
        // 1. Its logs and their blocks, fetched and proven complete as the head's are (the
        //    result cap, the bloom and recount checks, receipts when asked, a silent cap):
        //    the fetcher may shorten the range to what it could prove.
        wire::FetchSpec spec = sourceFetchSpec(m_config, m_registry);
        spec.contracts = {source.address};
        spec.capacity = m_capacity;
        if (!source.factoryRule.isEmpty())
            spec.children = directoryFor(source, from, cp);
        wire::LogFetcher fetcher(m_eth, std::move(spec));
        wire::WireBatch fetched = fetcher.fetch(from, to, cp.number);
        status.truncationHalvings += fetched.halvings;
        status.completeness += fetched.completeness;
        if (fetched.headers.isEmpty())
            return std::nullopt;

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
                return std::nullopt; // the chain moved under the stored blocks: the head first
            if (i == 0 && source.checkpoint && header.parentHash != source.checkpoint->hash)
                return std::nullopt;
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
        QSet<chain::Address> asked{source.address};
        for (const chain::Address& child : fetched.fetchedChildren)
            asked.insert(child);
        const QString endpoint = m_eth.endpointText();
        for (const chain::LogEntry& log : batch.logs)
            checkBatchLog(log, from, last, batch.blocks, asked, endpoint);
        std::sort(batch.logs.begin(), batch.logs.end(),
                  [](const auto& a, const auto& b) { return a.position() < b.position(); });
        for (qsizetype i = 1; i < batch.logs.size(); ++i)
            if (batch.logs[i].position() == batch.logs[i - 1].position())
                throw NodeInconsistentError(
                    QStringLiteral("node %1 answered log %2 of block %3 twice")
                        .arg(endpoint)
                        .arg(batch.logs[i].logIndex)
                        .arg(batch.logs[i].blockNumber));
        if (m_registry && batch.decodings.size() != batch.logs.size()) {
            batch.decodings.clear();
            for (const chain::LogEntry& log : batch.logs)
                batch.decodings.append(m_registry->decode(log));
        }
        if (source.factoryRule.isEmpty() ||
            admitChildren(batch, source, fetched.fetchedChildren, status))
            return batch;
    }
    return std::nullopt;
}

std::shared_ptr<wire::ChildDirectory>
SourceBackfill::directoryFor(const AddedSource& source, std::uint64_t from, const Checkpoint& cp)
{
    // What it scanned above the batch may be another branch's since (a rollback): then the
    // scan starts again from the children stored.
    const bool scannedStillStored =
        m_directoryCp.number <= cp.number &&
        m_store.storedHash(m_directoryCp.number) == std::optional(m_directoryCp.hash);
    if (!m_directory || m_directoryOf != source.address || m_directoryNext != from ||
        !scannedStillStored) {
        std::optional<wire::FactorySource> rule;
        try {
            rule = wire::FactorySource::fromRuleText(source.factoryRule);
        } catch (const wire::FactorySourceError& e) {
            throw IndexerError(QStringLiteral("the added factory %1: %2")
                                   .arg(source.address.toHex(), e.message()));
        }
        if (!rule)
            throw IndexerError(QStringLiteral("the added factory %1 has the rule '%2', which "
                                              "does not name a factory")
                                   .arg(source.address.toHex(), source.factoryRule));
        m_factoryChildren.clear();
        for (const wire::ChildCreation& c : m_store.children())
            if (c.factory == source.address)
                m_factoryChildren.append(c);
        m_directory = std::make_shared<wire::ChildDirectory>(QList<wire::FactorySource>{*rule},
                                                             m_config.logsPerCall);
        m_directory->reset(m_factoryChildren,
                           from > 0 ? std::optional(from - 1) : std::optional<std::uint64_t>());
        m_directoryOf = source.address;
        m_directoryNext = from;
    }
    m_directoryCp = cp;
    return m_directory;
}

bool SourceBackfill::admitChildren(VerifiedBatch& batch, const AddedSource& source,
                                   const QList<chain::Address>& fetched, IndexerStatus& status)
{
    ChildBook book(m_directory->sources());
    book.load(m_factoryChildren);
    const ChildBook::Judgement j =
        book.judge(batch.logs, batch.blocks.last().number, fetched,
                   [&source](const chain::Address& a) { return a == source.address; });
    if (!j.unfetched.isEmpty()) {
        for (const wire::ChildCreation& c : j.unfetched)
            m_directory->add(c.child, c.blockNumber);
        ++status.childRefetches;
        return false;
    }
    j.applyTo(batch);
    return true;
}

} // namespace forkscope::indexer
