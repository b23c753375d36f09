#include "Indexer.h"
#include "BatchLogCheck.h"
#include "IndexerErrors.h"
#include "ReorgReason.h"
#include "SourceBackfill.h"
#include "SourceFetchSpec.h"
#include "rpc/EthClient.h"
#include "text/Count.h"
#include "wire/ReplyMismatchError.h"
#include "wire/SuspectedTruncationError.h"

#include <QDeadlineTimer>
#include <algorithm>
#include <utility>

namespace forkscope::indexer {

namespace {
// How long a wait for a batch goes between two renewals of the ranges' leases.
constexpr std::chrono::milliseconds kRenewSlice{2000};
} // namespace

Indexer::Indexer(IndexerConfig config, IndexStore& store, rpc::EthClient& eth)
    : m_config(config), m_given(std::move(config)), m_store(store), m_eth(eth)
{
}

Indexer::~Indexer()
{
    // Ranges held and not committed go back to the others at once, not after their lease.
    if (m_prepared) {
        try {
            m_store.coordination().release();
        } catch (const std::exception&) {
            // the connection is gone: the lease (or the session) ends them
        }
    }
}

wire::FetchPool& Indexer::pool()
{
    if (!m_pool) {
        m_pool = std::make_unique<wire::FetchPool>(
            m_config.rpcUrl, sourceFetchSpec(m_config, m_registry, m_directory),
            std::max(1, m_config.fetchWorkers), m_config.rpcTimeout, m_config.maxReplyBytes,
            m_config.stopToken);
    }
    return *m_pool;
}

void Indexer::dropPlan()
{
    if (m_pool)
        m_pool->cancel();
    if (m_prepared)
        m_store.coordination().release();
}

wire::WireContext Indexer::wireContext() const
{
    return sourceFetchSpec(m_config, m_registry).context;
}

std::uint64_t Indexer::expectedFromBlock()
{
    const auto cp = m_store.checkpoint();
    return cp ? cp->number + 1 : m_config.fromBlock;
}

bool Indexer::identityCheckDue() const
{
    return m_identityCheckDue || !m_sinceIdentityCheck.isValid() ||
           m_sinceIdentityCheck.elapsed() >= m_config.identityCheckInterval.count();
}

void Indexer::verifyNodeIdentity()
{
    const std::uint64_t chainId = m_eth.chainId();
    const auto genesis = m_eth.blockByNumber(0);
    checkNodeIdentity(chainId, genesis ? std::optional(genesis->hash) : std::nullopt);
}

void Indexer::checkNodeIdentity(std::uint64_t chainId, const std::optional<chain::Hash32>& genesis)
{
    if (!genesis)
        throw NodeBehindError(QStringLiteral("node answered null for the genesis block"));
    if (chainId != m_chainId || *genesis != m_genesis) {
        // A lab reset archives the environment and resets the node: say that, if so.
        m_store.requireLive();
        Environment env;
        env.id = m_config.environmentId;
        env.chainId = m_chainId;
        env.genesisHash = m_genesis;
        throw ChainResetError(chainResetMessage(
            env, m_config.rpcUrl, chainId, *genesis,
            QStringLiteral("Noticed while indexing: stopped, nothing more was written")));
    }
    m_identityCheckDue = false;
    m_sinceIdentityCheck.start();
}

void Indexer::noteNodeTrouble(IndexerStatus::State state, const QString& message)
{
    dropPlan();
    m_status.state = state;
    m_status.message = message;
    // Whatever the node did, it may come back as another node: check what chain it serves
    // before the next round trusts it.
    m_identityCheckDue = true;
    if (state == IndexerStatus::State::NodeInconsistent) {
        ++m_status.inconsistencies;
        // Re-fetch at once the first time (a reorg between two queries looks the same),
        // then back off: a node that keeps contradicting itself is not asked in a loop.
        ++m_troubleStreak;
        m_status.retryDelayMs =
            m_troubleStreak <= 1
                ? 0
                : int(std::min<qint64>(30000, 250LL << std::min(m_troubleStreak, 7)));
    }
}

Indexer::Acceptance Indexer::accept(const wire::WireBatch& batch)
{
    if (!m_prepared)
        prepare();
    return apply(m_store.checkpoint(), batch, std::nullopt);
}

Indexer::Acceptance Indexer::apply(const std::optional<Checkpoint>& cp,
                                   const wire::WireBatch& batch,
                                   const std::optional<RangeClaim>& claim)
{
    Acceptance result;
    const std::uint64_t next = cp ? cp->number + 1 : m_config.fromBlock;
    // A claimed range starts where it was planned; it continues the checkpoint only when it
    // starts right above it (with several writers ranges finish out of order).
    result.expectedFromBlock = claim ? claim->from : next;
    const bool continues = result.expectedFromBlock == next;
    if (const QString why = refusal(batch, result.expectedFromBlock); !why.isEmpty()) {
        result.reason = why;
        return result;
    }
    VerifiedBatch verified;
    if (!linkHeaders(cp && continues ? &*cp : nullptr, batch, claim, verified)) {
        result.reason = QStringLiteral("parent mismatch");
        return result;
    }
    const std::uint64_t last = verified.blocks.back().number;
    keepCheckedLogs(batch, last, verified);
    if (m_children && !admitChildren(verified, batch, last, result))
        return result;

    // Far from the head, the next round's check of this batch's last block is asked now and
    // answered while the commit runs (HeadCheckAhead.h).
    if (claim && continues) {
        if (!m_headAhead)
            m_headAhead = std::make_unique<HeadCheckAhead>(m_config.rpcUrl, m_config.rpcTimeout,
                                                           m_config.stopToken);
        m_headAhead->ask(last, verified.blocks.back().hash);
    }
    CommitPlacement placement;
    placement.expected = cp;
    placement.startBlock = m_config.fromBlock;
    placement.policyVersion = m_config.policyVersion();
    placement.generation = kProjectionGeneration;
    if (claim) {
        placement.range = *claim;
        placement.range->attempts = m_rangeAttempts.value(claim->from, 0) + 1;
    }
    const CommitStats stats = m_store.commit(verified, placement);
    m_rangeAttempts.remove(batch.fromBlock);
    m_takenOver.remove(batch.fromBlock);
    countCommitted(stats, verified, batch);
    m_troubleStreak = 0;
    result.accepted = true;
    result.expectedFromBlock = last + 1;
    return result;
}

QString Indexer::refusal(const wire::WireBatch& batch, std::uint64_t expectedFromBlock)
{
    const wire::WireContext expectedContext = wireContext();
    if (batch.context != expectedContext) {
        ++m_status.rejectedBatches;
        return QStringLiteral("batch fetched for source %1 / config %2, expected %3 / %4")
            .arg(batch.context.source, batch.context.config, expectedContext.source,
                 expectedContext.config);
    }
    if (batch.fromBlock != expectedFromBlock) {
        // Not an error: the fetcher re-sends from the block we name.
        ++m_status.rejectedBatches;
        return QStringLiteral("batch starts at %1, expected %2")
            .arg(batch.fromBlock)
            .arg(expectedFromBlock);
    }
    if (batch.headers.isEmpty())
        return QStringLiteral("empty batch");
    return {};
}

bool Indexer::linkHeaders(const Checkpoint* below, const wire::WireBatch& batch,
                          const std::optional<RangeClaim>& claim, VerifiedBatch& verified)
{
    const chain::Hash32* previous = below ? &below->hash : nullptr;
    for (const auto& h : batch.headers) {
        if (h.number != batch.fromBlock + std::uint64_t(verified.blocks.size()))
            throw rpc::RpcException(
                rpc::RpcError{rpc::RpcError::Kind::Malformed,
                              QStringLiteral("eth_getBlockByNumber"),
                              m_config.rpcUrl.toString(),
                              0,
                              0,
                              QStringLiteral("header %1 out of sequence").arg(h.number),
                              {}});
        if (previous && h.parentHash != *previous) {
            if (verified.blocks.isEmpty()) {
                rollBackOrRefuse(*below, h);
                return false;
            }
            if (claim) // a range is committed whole or not at all
                throw NodeInconsistentError(
                    QStringLiteral("node %1 serves block %2 that does not follow block %3; "
                                   "nothing of range %4-%5 is stored")
                        .arg(m_eth.endpointText())
                        .arg(h.number)
                        .arg(verified.blocks.last().number)
                        .arg(claim->from)
                        .arg(claim->to));
            break; // the head changed mid-fetch: keep the linked prefix
        }
        verified.blocks.append(h);
        previous = &verified.blocks.last().hash;
    }
    return true;
}

void Indexer::rollBackOrRefuse(const Checkpoint& cp, const chain::BlockHeader& above)
{
    // The block after our checkpoint does not build on it. Either the checkpoint was reorged
    // out since the re-check, or the node serves headers that do not link: ask for the
    // checkpoint's block again to tell which.
    const auto again = m_eth.blockByNumber(cp.number);
    if (!again)
        throw NodeBehindError(
            QStringLiteral("node answered null for block %1 below its head").arg(cp.number));
    if (again->hash == cp.hash)
        throw NodeInconsistentError(
            QStringLiteral("node %1 serves block %2 with parentHash %3, but its block %4 is "
                           "%5: headers that do not link are the node's inconsistency, not a "
                           "reorg; nothing committed or rolled back, fetching again")
                .arg(m_eth.endpointText())
                .arg(above.number)
                .arg(above.parentHash.toHex())
                .arg(cp.number)
                .arg(cp.hash.toHex()));
    rollBack(cp, reorg_reason::kParentMismatch);
}

void Indexer::keepCheckedLogs(const wire::WireBatch& batch, std::uint64_t last,
                              VerifiedBatch& verified)
{
    qsizetype kept = 0;
    const QString endpoint = m_eth.endpointText(); // a QUrl rendered: once, not per log
    QSet<chain::Address> asked = m_own;
    for (const chain::Address& child : batch.fetchedChildren)
        asked.insert(child);
    for (const chain::LogEntry& log : batch.logs) {
        if (log.blockNumber > last)
            continue;
        checkBatchLog(log, batch.fromBlock, batch.toBlock, verified.blocks, asked, endpoint);
        ++kept;
    }
    if (kept == batch.logs.size()) {
        // Every log is kept (the usual case): the lists are shared, not copied log by log on
        // this thread, which is the one every batch waits for.
        verified.logs = batch.logs;
        verified.decodings = batch.decodings.mid(0, kept);
        return;
    }
    verified.logs.reserve(kept);
    for (qsizetype i = 0; i < batch.logs.size(); ++i) {
        if (batch.logs[i].blockNumber > last)
            continue;
        verified.logs.append(batch.logs[i]);
        if (i < batch.decodings.size())
            verified.decodings.append(batch.decodings[i]);
    }
}

void Indexer::countCommitted(const CommitStats& stats, const VerifiedBatch& verified,
                             const wire::WireBatch& batch)
{
    m_status.blocksCommitted += stats.blocks;
    m_status.logsCommitted += stats.logs;
    m_status.transfersCommitted += stats.transfers;
    m_status.decodeFailures += stats.decodeFailures;
    m_status.abiDecoded += stats.abiDecoded;
    m_status.abiUnmatched += stats.abiUnmatched;
    m_status.abiFailures += stats.abiFailures;
    if (m_children) {
        m_children->committed(verified.children);
        for (const wire::ChildCreation& c : verified.children)
            m_directory->add(c.child, c.blockNumber);
        m_status.childrenFound += qint64(verified.children.size());
    }
    m_status.truncationHalvings += batch.halvings;
    m_status.completeness += batch.completeness;
    if (stats.checkpoint)
        m_status.checkpoint = stats.checkpoint;
}

void Indexer::onFetchFailure(const RangeClaim& range, const QString& error)
{
    ++m_status.fetchFailures;
    const int attempts = ++m_rangeAttempts[range.from];
    const bool givenUp = attempts >= m_config.maxRangeAttempts;
    RangeClaim failed = range;
    failed.attempts = attempts;
    if (range.to >= range.from)
        m_store.coordination().failed(failed, error, givenUp);
    // Capped exponential backoff; a range is never skipped, only retried later.
    m_status.retryDelayMs = int(std::min<qint64>(30000, 100LL << std::min(attempts, 9)));
}

std::optional<wire::FetchOutcome> Indexer::takeBatch(std::uint64_t from)
{
    QDeadlineTimer deadline(m_config.rpcTimeout * 3);
    // Renewed well within the lease (a short one included), or another writer takes the
    // ranges over from a writer that is only waiting for its node.
    const qint64 renewEvery =
        std::max<qint64>(1, std::min<qint64>(kRenewSlice.count(), m_config.rangeLease.count() / 3));
    for (;;) {
        const auto slice =
            std::min<qint64>(renewEvery, std::max<qint64>(0, deadline.remainingTime()));
        auto outcome = pool().take(from, std::chrono::milliseconds(slice));
        if (outcome || deadline.hasExpired() || !pool().isNext(from) ||
            (m_config.stopToken && m_config.stopToken->stopRequested()))
            return outcome;
        // A slow node must not make the ranges in hand look abandoned to other writers.
        m_store.coordination().keepAlive();
    }
}

bool Indexer::leads()
{
    const bool now = m_store.coordination().leadsHead();
    if (now != m_led && onLeadChanged)
        onLeadChanged(now);
    m_led = now;
    return now;
}

const IndexerStatus& Indexer::standBy(const std::optional<Checkpoint>& cp, std::uint64_t head,
                                      const QString& why)
{
    if (m_pool)
        m_pool->cancel();
    // At the head there is nothing to wait for: the index is synced, whoever moved it there.
    const bool atHead = cp && cp->number >= head;
    if (atHead) {
        if (synced().state == IndexerStatus::State::Synced)
            m_status.retryDelayMs = int(m_config.pollInterval.count());
        return m_status;
    }
    m_status.state = IndexerStatus::State::StandingBy;
    m_status.message = why;
    m_status.retryDelayMs = int(m_config.pollInterval.count());
    return m_status;
}

const IndexerStatus& Indexer::synced()
{
    // Not synced while an added contract's backfill goes on: the next round goes on with it.
    if (m_status.sourcesPending > 0) {
        m_status.state = IndexerStatus::State::Syncing;
        m_status.message =
            QStringLiteral("backfilling %1")
                .arg(text::count(m_status.sourcesPending, QStringLiteral("added contract"),
                                 QStringLiteral("added contracts")));
        return m_status;
    }
    m_status.state = IndexerStatus::State::Synced;
    m_status.message.clear();
    return m_status;
}

} // namespace forkscope::indexer
