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
    const wire::WireContext expectedContext = wireContext();
    if (batch.context != expectedContext) {
        ++m_status.rejectedBatches;
        result.reason = QStringLiteral("batch fetched for source %1 / config %2, expected %3 / %4")
                            .arg(batch.context.source, batch.context.config, expectedContext.source,
                                 expectedContext.config);
        return result;
    }
    if (batch.fromBlock != result.expectedFromBlock) {
        // Not an error: the fetcher re-sends from the block we name.
        ++m_status.rejectedBatches;
        result.reason = QStringLiteral("batch starts at %1, expected %2")
                            .arg(batch.fromBlock)
                            .arg(result.expectedFromBlock);
        return result;
    }
    if (batch.headers.isEmpty()) {
        result.reason = QStringLiteral("empty batch");
        return result;
    }

    VerifiedBatch verified;
    const chain::Hash32* previous = cp && continues ? &cp->hash : nullptr;
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
                // The block after our checkpoint does not build on it. Either the checkpoint
                // was reorged out since the re-check, or the node serves headers that do not
                // link: ask for the checkpoint's block again to tell which.
                const auto again = m_eth.blockByNumber(cp->number);
                if (!again)
                    throw NodeBehindError(
                        QStringLiteral("node answered null for block %1 below its head")
                            .arg(cp->number));
                if (again->hash == cp->hash)
                    throw NodeInconsistentError(
                        QStringLiteral("node %1 serves block %2 with parentHash %3, but its "
                                       "block %4 is %5: headers that do not link are the "
                                       "node's inconsistency, not a reorg; nothing committed "
                                       "or rolled back, fetching again")
                            .arg(m_eth.endpointText())
                            .arg(h.number)
                            .arg(h.parentHash.toHex())
                            .arg(cp->number)
                            .arg(cp->hash.toHex()));
                rollBack(*cp, reorg_reason::kParentMismatch);
                result.reason = QStringLiteral("parent mismatch");
                return result;
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
    const std::uint64_t last = verified.blocks.back().number;
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
    } else {
        verified.logs.reserve(kept);
        for (qsizetype i = 0; i < batch.logs.size(); ++i) {
            if (batch.logs[i].blockNumber > last)
                continue;
            verified.logs.append(batch.logs[i]);
            if (i < batch.decodings.size())
                verified.decodings.append(batch.decodings[i]);
        }
    }

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
    m_troubleStreak = 0;
    result.accepted = true;
    result.expectedFromBlock = last + 1;
    return result;
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

const IndexerStatus& Indexer::step()
{
    if (!m_prepared)
        prepare();
    m_status.retryDelayMs = 0;
    std::optional<RangeClaim> planned; // the range this round waits for
    Coordination& coordination = m_store.coordination();
    try {
        // Every round, whatever it waits for (a commit, a backoff, the node): the ranges in
        // hand must not look abandoned to other writers (throttled to a third of the lease).
        coordination.keepAlive();
        auto cp = m_store.checkpoint();
        m_status.checkpoint = cp ? std::optional<std::uint64_t>(cp->number) : std::nullopt;
        if (identityCheckDue())
            verifyNodeIdentity();

        // 1. Before going forward, confirm we are still on the node's chain (the head and
        //    the checkpoint's block in one round trip; during a backfill, asked before the
        //    commit that wrote this checkpoint: HeadCheckAhead.h).
        std::uint64_t head = 0;
        if (cp) {
            std::optional<rpc::HeadCheck> early =
                m_headAhead ? m_headAhead->takeFor(*cp) : std::nullopt;
            if (early)
                ++m_status.headChecksAhead;
            const rpc::HeadCheck check = early ? *std::move(early) : m_eth.headCheck(cp->number);
            // Every round, before anything else is read from this answer or committed: a
            // node that changed chain id or genesis under the same URL is another chain.
            checkNodeIdentity(check.chainId, check.genesis);
            head = check.head;
            const std::optional<chain::BlockHeader>& onChain = check.block;
            m_status.head = head;
            if (head < cp->number && rollBackIfHeadDisagrees(*cp, head))
                return m_status;
            if (head < cp->number || !onChain) {
                // A lagging or syncing node: its null says "not reached", not "gone".
                m_status.state = IndexerStatus::State::NodeBehind;
                m_status.message = QStringLiteral("node head %1 is below the checkpoint %2; "
                                                  "waiting (not a reorg until a hash disagrees)")
                                       .arg(head)
                                       .arg(cp->number);
                return m_status;
            }
            if (onChain->hash != cp->hash) {
                rollBack(*cp, reorg_reason::kHashMismatch);
                return m_status;
            }
            if (!m_sinceVerifiedWrite.isValid() || m_sinceVerifiedWrite.elapsed() > 30000) {
                m_store.markVerified(*cp);
                m_sinceVerifiedWrite.start();
            }
            // An added contract's backfill: one batch a round, next to the head's, toward the
            // checkpoint just confirmed.
            backfillSources(*cp);
        } else {
            head = m_eth.blockNumber();
            m_status.head = head;
        }

        // 2. The range the receiver expects next.
        const std::uint64_t from = cp ? cp->number + 1 : m_config.fromBlock;
        // Range size and depth follow the last range's log count (FetchWindow.h).
        if (m_rangeBlocks == 0)
            m_rangeBlocks = std::max<std::uint64_t>(1, m_config.batchSize);
        if (m_nextRangeBlocks && *m_nextRangeBlocks != m_rangeBlocks) {
            m_rangeBlocks = *m_nextRangeBlocks;
            dropPlan(); // ranges planned at the old size would not start where expected
        }
        m_nextRangeBlocks.reset();
        const std::uint64_t batchSize = m_rangeBlocks;
        // Far behind: a backfill, fetched by several workers in parallel, its ranges handed
        // out by the coordination (and leased to several writers on a shared store). Ranges
        // still open above the checkpoint are the backfill's too, however near the head.
        const bool backfill =
            (from <= head && head - from + 1 > 2 * batchSize) || coordination.rangesOpen(from);
        if (!backfill && from > head) {
            if (m_pool)
                m_pool->cancel();
            if (!cp) {
                // Nothing indexed yet and the chain has not reached the start block: there
                // is no checkpoint to call synced, so say what is being waited for.
                m_status.state = IndexerStatus::State::WaitingForStart;
                m_status.message = QStringLiteral("the node's head %1 is below block %2, "
                                                  "where indexing starts")
                                       .arg(head)
                                       .arg(from);
                return m_status;
            }
            // The absence check may roll back: the head's leader's alone.
            if ((m_recheckDue || !m_sinceRecheck.isValid() || m_sinceRecheck.elapsed() > 10000) &&
                leads()) {
                m_recheckDue = false;
                m_sinceRecheck.start();
                if (recheckForAbsence(*cp))
                    return m_status;
            }
            return synced();
        }
        bool whole = false;
        if (backfill) {
            const int depth = fetch_window::depth(m_logsPerRange, pool().workers());
            const QList<RangeClaim> claims = coordination.claim(cp, from, head, batchSize, depth);
            if (claims.isEmpty())
                return standBy(cp, head,
                               QStringLiteral("the backfill ranges left are other writers'; "
                                              "waiting for them"));
            QList<std::pair<std::uint64_t, std::uint64_t>> ranges;
            for (const RangeClaim& c : claims) {
                ranges.append({c.from, c.to});
                if (!c.takenOverFrom.isEmpty() && !m_takenOver.contains(c.from)) {
                    m_takenOver.insert(c.from);
                    ++m_status.rangesTakenOver;
                    if (onTakeover)
                        onTakeover(c);
                }
            }
            pool().planRanges(ranges, head);
            planned = claims.first();
            whole = true;
        } else {
            // Near the head one writer indexes, in block order, and decides the reorgs.
            if (!leads())
                return standBy(cp, head,
                               QStringLiteral("another writer follows the head of %1")
                                   .arg(m_config.environmentId));
            pool().plan(from, head, batchSize, 2);
            planned = RangeClaim{from, std::min(head, from + batchSize - 1), 0, {}, false};
        }

        // 3. Wait for the fetchers' batch for exactly that start.
        const auto outcome = takeBatch(planned->from);
        if (!outcome) {
            if (m_config.stopToken && m_config.stopToken->stopRequested()) {
                dropPlan();
                return m_status;
            }
            ++m_status.timeouts;
            onFetchFailure(*planned, QStringLiteral("no batch within the fetch timeout"));
            noteNodeTrouble(
                IndexerStatus::State::NodeUnreachable,
                QStringLiteral("fetching %1..%2 timed out").arg(planned->from).arg(planned->to));
            return m_status;
        }
        if (outcome->truncatedBlock) {
            // Recorded before stopping: the app and the report keep saying "data incomplete"
            // after this run ends, until a repair (or a run) fetches the block again.
            const QString node =
                outcome->truncationNode.isEmpty() ? m_eth.endpointText() : outcome->truncationNode;
            dropPlan();
            m_store.recordAlert(node, *outcome->truncatedBlock, *outcome->truncatedBlock,
                                outcome->truncationMessage, QStringLiteral("fetch"));
            throw wire::SuspectedTruncationError(*outcome->truncatedBlock,
                                                 outcome->truncationMessage, node);
        }
        if (outcome->mismatch)
            throw wire::ReplyMismatchError(*outcome->mismatch);
        if (outcome->rpcError) {
            if (outcome->rpcError->kind == rpc::RpcError::Kind::Timeout)
                ++m_status.timeouts;
            onFetchFailure(*planned, outcome->rpcError->toString());
            noteNodeTrouble(IndexerStatus::State::NodeUnreachable, outcome->rpcError->toString());
            return m_status;
        }
        const wire::WireBatch& batch = *outcome->batch;
        m_logsPerRange = std::max<qint64>(1, batch.logs.size());
        if (backfill) // near the head ranges are short anyway: no estimate from them
            m_nextRangeBlocks = fetch_window::rangeBlocks(m_rangeBlocks, batch.logs.size(),
                                                          batch.headers.size(), m_config.batchSize);
        if (batch.headers.isEmpty() || (whole && batch.toBlock < planned->to)) {
            dropPlan();
            m_status.state = IndexerStatus::State::NodeBehind;
            m_status.message = QStringLiteral("node answered null for block %1 below its head %2")
                                   .arg(batch.headers.isEmpty() ? planned->from : batch.toBlock + 1)
                                   .arg(head);
            return m_status;
        }

        // Block 0 is the genesis the environment was registered with: a batch that starts
        // there under another hash comes from a node that changed identity since this round
        // checked it, and must not be committed.
        if (batch.fromBlock == 0)
            checkNodeIdentity(m_chainId, batch.headers.first().hash);

        // 4. Data and checkpoint, one transaction.
        Acceptance a;
        try {
            a = apply(cp, batch, whole ? planned : std::nullopt);
        } catch (const CheckpointMovedError&) {
            if (whole && planned->from != from)
                ++m_status.rangesLost; // taken over meanwhile: its rows here rolled back
            throw;
        }
        if (m_status.state == IndexerStatus::State::Reorged)
            return m_status;
        if (!a.accepted) {
            dropPlan();
            m_status.state = IndexerStatus::State::Syncing;
            m_status.message = a.reason;
            return m_status;
        }
        if (std::exchange(m_loseNextAck, false)) {
            // The acknowledgement is lost: the same batch arrives again. The cursor is the
            // idempotency key, so it is refused with where to start, never applied twice.
            const Acceptance again = apply(m_store.checkpoint(), batch, std::nullopt);
            if (onResentBatch)
                onResentBatch(batch.fromBlock,
                              batch.fromBlock + std::uint64_t(batch.headers.size()) - 1, again);
            dropPlan(); // the fetcher resumes from again.expectedFromBlock
        }
        // Even at the head this is "syncing": "synced" is only said after the next round
        // re-checked the checkpoint against the node.
        m_recheckDue = true;
        m_status.state = IndexerStatus::State::Syncing;
        m_status.message.clear();
    } catch (const rpc::RpcException& e) {
        // The node did not answer (or answered nonsense): that says nothing about the chain.
        if (e.error().kind == rpc::RpcError::Kind::Timeout)
            ++m_status.timeouts;
        if (e.error().kind == rpc::RpcError::Kind::Mismatch) {
            noteNodeTrouble(IndexerStatus::State::NodeInconsistent, e.error().toString());
        } else {
            noteNodeTrouble(IndexerStatus::State::NodeUnreachable, e.error().toString());
            m_status.retryDelayMs = 0;
        }
    } catch (const wire::ReplyMismatchError& e) {
        if (planned)
            onFetchFailure(*planned, e.message());
        noteNodeTrouble(IndexerStatus::State::NodeInconsistent, e.message());
    } catch (const NodeInconsistentError& e) {
        noteNodeTrouble(IndexerStatus::State::NodeInconsistent, e.message());
    } catch (const NodeBehindError& e) {
        dropPlan();
        m_status.state = IndexerStatus::State::NodeBehind;
        m_status.message = e.message();
    } catch (const CheckpointMovedError& e) {
        // Another writer moved the cursor (or took the range over); the next round re-reads.
        dropPlan();
        ++m_status.checkpointConflicts;
        m_status.state = IndexerStatus::State::Syncing;
        m_status.message = e.message();
    }
    return m_status;
}

} // namespace forkscope::indexer
