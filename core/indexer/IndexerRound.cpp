// Indexer::step(): one round of the reorg-safe loop (docs/design.md, "Indexing: one round"),
// in its four steps: confirm the checkpoint is still on the node's chain, plan the range the
// receiver expects next, take the fetchers' batch for it, and commit it with the checkpoint
// in one transaction. Each step ends the round early by returning true, m_status saying why.
#include "Indexer.h"
#include "IndexerErrors.h"
#include "ReorgReason.h"
#include "rpc/EthClient.h"
#include "wire/ReplyMismatchError.h"
#include "wire/SuspectedTruncationError.h"

#include <algorithm>
#include <utility>

namespace forkscope::indexer {

const IndexerStatus& Indexer::step()
{
    if (!m_prepared)
        prepare();
    m_status.retryDelayMs = 0;
    Round r;
    try {
        // Every round, whatever it waits for (a commit, a backoff, the node): the ranges in
        // hand must not look abandoned to other writers (throttled to a third of the lease).
        m_store.coordination().keepAlive();
        r.cp = m_store.checkpoint();
        m_status.checkpoint = r.cp ? std::optional<std::uint64_t>(r.cp->number) : std::nullopt;
        if (identityCheckDue())
            verifyNodeIdentity();
        if (confirmOnChain(r) || planRange(r))
            return m_status;
        std::optional<wire::FetchOutcome> outcome;
        if (takePlannedBatch(r, outcome))
            return m_status;
        commitRoundBatch(r, *outcome->batch);
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
        if (r.planned)
            onFetchFailure(*r.planned, e.message());
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

bool Indexer::confirmOnChain(Round& r)
{
    // Before going forward, confirm we are still on the node's chain (the head and the
    // checkpoint's block in one round trip; during a backfill, asked before the commit that
    // wrote this checkpoint: HeadCheckAhead.h).
    if (!r.cp) {
        r.head = m_eth.blockNumber();
        m_status.head = r.head;
        return false;
    }
    const Checkpoint& cp = *r.cp;
    std::optional<rpc::HeadCheck> early = m_headAhead ? m_headAhead->takeFor(cp) : std::nullopt;
    if (early)
        ++m_status.headChecksAhead;
    const rpc::HeadCheck check = early ? *std::move(early) : m_eth.headCheck(cp.number);
    // Every round, before anything else is read from this answer or committed: a node that
    // changed chain id or genesis under the same URL is another chain.
    checkNodeIdentity(check.chainId, check.genesis);
    r.head = check.head;
    const std::optional<chain::BlockHeader>& onChain = check.block;
    m_status.head = r.head;
    if (r.head < cp.number && rollBackIfHeadDisagrees(cp, r.head))
        return true;
    if (r.head < cp.number || !onChain) {
        // A lagging or syncing node: its null says "not reached", not "gone".
        m_status.state = IndexerStatus::State::NodeBehind;
        m_status.message = QStringLiteral("node head %1 is below the checkpoint %2; waiting "
                                          "(not a reorg until a hash disagrees)")
                               .arg(r.head)
                               .arg(cp.number);
        return true;
    }
    if (onChain->hash != cp.hash) {
        rollBack(cp, reorg_reason::kHashMismatch);
        return true;
    }
    if (!m_sinceVerifiedWrite.isValid() || m_sinceVerifiedWrite.elapsed() > 30000) {
        m_store.markVerified(cp);
        m_sinceVerifiedWrite.start();
    }
    // An added contract's backfill: one batch a round, next to the head's, toward the
    // checkpoint just confirmed.
    backfillSources(cp);
    return false;
}

bool Indexer::planRange(Round& r)
{
    // The range the receiver expects next.
    r.from = r.cp ? r.cp->number + 1 : m_config.fromBlock;
    // Range size and depth follow the last range's log count (FetchWindow.h).
    if (m_rangeBlocks == 0)
        m_rangeBlocks = std::max<std::uint64_t>(1, m_config.batchSize);
    if (m_nextRangeBlocks && *m_nextRangeBlocks != m_rangeBlocks) {
        m_rangeBlocks = *m_nextRangeBlocks;
        dropPlan(); // ranges planned at the old size would not start where expected
    }
    m_nextRangeBlocks.reset();
    const std::uint64_t batchSize = m_rangeBlocks;
    Coordination& coordination = m_store.coordination();
    // Far behind: a backfill, fetched by several workers in parallel, its ranges handed out
    // by the coordination (and leased to several writers on a shared store). Ranges still
    // open above the checkpoint are the backfill's too, however near the head.
    r.backfill = (r.from <= r.head && r.head - r.from + 1 > 2 * batchSize) ||
                 coordination.rangesOpen(r.from);
    if (!r.backfill && r.from > r.head) {
        atTheHead(r);
        return true;
    }
    if (!r.backfill) {
        // Near the head one writer indexes, in block order, and decides the reorgs.
        if (!leads()) {
            standBy(r.cp, r.head,
                    QStringLiteral("another writer follows the head of %1")
                        .arg(m_config.environmentId));
            return true;
        }
        pool().plan(r.from, r.head, batchSize, 2);
        r.planned = RangeClaim{r.from, std::min(r.head, r.from + batchSize - 1), 0, {}, false};
        return false;
    }
    const int depth = fetch_window::depth(m_logsPerRange, pool().workers());
    const QList<RangeClaim> claims = coordination.claim(r.cp, r.from, r.head, batchSize, depth);
    if (claims.isEmpty()) {
        standBy(r.cp, r.head,
                QStringLiteral("the backfill ranges left are other writers'; waiting for them"));
        return true;
    }
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
    pool().planRanges(ranges, r.head);
    r.planned = claims.first();
    r.whole = true;
    return false;
}

void Indexer::atTheHead(const Round& r)
{
    if (m_pool)
        m_pool->cancel();
    if (!r.cp) {
        // Nothing indexed yet and the chain has not reached the start block: there is no
        // checkpoint to call synced, so say what is being waited for.
        m_status.state = IndexerStatus::State::WaitingForStart;
        m_status.message =
            QStringLiteral("the node's head %1 is below block %2, where indexing starts")
                .arg(r.head)
                .arg(r.from);
        return;
    }
    // The absence check may roll back: the head's leader's alone.
    if ((m_recheckDue || !m_sinceRecheck.isValid() || m_sinceRecheck.elapsed() > 10000) &&
        leads()) {
        m_recheckDue = false;
        m_sinceRecheck.start();
        if (recheckForAbsence(*r.cp))
            return;
    }
    synced();
}

bool Indexer::takePlannedBatch(Round& r, std::optional<wire::FetchOutcome>& outcome)
{
    // Wait for the fetchers' batch for exactly the planned start.
    const RangeClaim& planned = *r.planned;
    outcome = takeBatch(planned.from);
    if (!outcome) {
        if (m_config.stopToken && m_config.stopToken->stopRequested()) {
            dropPlan();
            return true;
        }
        ++m_status.timeouts;
        onFetchFailure(planned, QStringLiteral("no batch within the fetch timeout"));
        noteNodeTrouble(
            IndexerStatus::State::NodeUnreachable,
            QStringLiteral("fetching %1..%2 timed out").arg(planned.from).arg(planned.to));
        return true;
    }
    if (outcome->truncatedBlock) {
        // Recorded before stopping: the app and the report keep saying "data incomplete"
        // after this run ends, until a repair (or a run) fetches the block again.
        const QString node =
            outcome->truncationNode.isEmpty() ? m_eth.endpointText() : outcome->truncationNode;
        dropPlan();
        m_store.recordAlert(node, *outcome->truncatedBlock, *outcome->truncatedBlock,
                            outcome->truncationMessage, QStringLiteral("fetch"));
        throw wire::SuspectedTruncationError(*outcome->truncatedBlock, outcome->truncationMessage,
                                             node);
    }
    if (outcome->mismatch)
        throw wire::ReplyMismatchError(*outcome->mismatch);
    if (outcome->rpcError) {
        if (outcome->rpcError->kind == rpc::RpcError::Kind::Timeout)
            ++m_status.timeouts;
        onFetchFailure(planned, outcome->rpcError->toString());
        noteNodeTrouble(IndexerStatus::State::NodeUnreachable, outcome->rpcError->toString());
        return true;
    }
    const wire::WireBatch& batch = *outcome->batch;
    m_logsPerRange = std::max<qint64>(1, batch.logs.size());
    if (r.backfill) // near the head ranges are short anyway: no estimate from them
        m_nextRangeBlocks = fetch_window::rangeBlocks(m_rangeBlocks, batch.logs.size(),
                                                      batch.headers.size(), m_config.batchSize);
    if (batch.headers.isEmpty() || (r.whole && batch.toBlock < planned.to)) {
        dropPlan();
        m_status.state = IndexerStatus::State::NodeBehind;
        m_status.message = QStringLiteral("node answered null for block %1 below its head %2")
                               .arg(batch.headers.isEmpty() ? planned.from : batch.toBlock + 1)
                               .arg(r.head);
        return true;
    }
    // Block 0 is the genesis the environment was registered with: a batch that starts there
    // under another hash comes from a node that changed identity since this round checked
    // it, and must not be committed.
    if (batch.fromBlock == 0)
        checkNodeIdentity(m_chainId, batch.headers.first().hash);
    return false;
}

void Indexer::commitRoundBatch(const Round& r, const wire::WireBatch& batch)
{
    // Data and checkpoint, one transaction.
    Acceptance a;
    try {
        a = apply(r.cp, batch, r.whole ? r.planned : std::nullopt);
    } catch (const CheckpointMovedError&) {
        if (r.whole && r.planned->from != r.from)
            ++m_status.rangesLost; // taken over meanwhile: its rows here rolled back
        throw;
    }
    if (m_status.state == IndexerStatus::State::Reorged)
        return;
    if (!a.accepted) {
        dropPlan();
        m_status.state = IndexerStatus::State::Syncing;
        m_status.message = a.reason;
        return;
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
}

} // namespace forkscope::indexer
