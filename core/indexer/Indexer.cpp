#include "Indexer.h"
#include "BatchLogCheck.h"
#include "CompletenessAlerts.h"
#include "IndexerErrors.h"
#include "SourceFetchSpec.h"
#include "rpc/EthClient.h"
#include "store/Database.h"
#include "wire/ReplyMismatchError.h"
#include "wire/SuspectedTruncationError.h"

#include <QSqlQuery>
#include <algorithm>
#include <utility>

namespace forkscope::indexer {

Indexer::Indexer(IndexerConfig config, store::Database& db, rpc::EthClient& eth)
    : m_config(std::move(config)), m_db(db), m_eth(eth)
{
}

Indexer::~Indexer() = default;

wire::FetchPool& Indexer::pool()
{
    if (!m_pool) {
        m_pool = std::make_unique<wire::FetchPool>(
            m_config.rpcUrl, sourceFetchSpec(m_config, m_registry),
            std::max(1, m_config.fetchWorkers), m_config.rpcTimeout, m_config.maxReplyBytes,
            m_config.stopToken);
    }
    return *m_pool;
}

wire::WireContext Indexer::wireContext() const
{
    return sourceFetchSpec(m_config, m_registry).context;
}

std::uint64_t Indexer::expectedFromBlock()
{
    const auto cp = m_checkpoints->read();
    return cp ? cp->number + 1 : m_config.fromBlock;
}

bool Indexer::hasOpenFetchAlerts()
{
    for (const auto& a : CompletenessAlerts(m_db, m_config.environmentId, m_chainId).open())
        if (a.kind == QLatin1String("fetch"))
            return true;
    return false;
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
        m_checkpoints->ensureLive();
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
    if (m_pool)
        m_pool->cancel();
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
    return apply(m_checkpoints->read(), batch, false);
}

Indexer::Acceptance Indexer::apply(const std::optional<Checkpoint>& cp,
                                   const wire::WireBatch& batch, bool backfill)
{
    Acceptance result;
    result.expectedFromBlock = cp ? cp->number + 1 : m_config.fromBlock;
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
    const chain::Hash32* previous = cp ? &cp->hash : nullptr;
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
            break; // the head changed mid-fetch: keep the linked prefix
        }
        verified.blocks.append(h);
        previous = &verified.blocks.last().hash;
    }
    const std::uint64_t last = verified.blocks.back().number;
    qsizetype kept = 0;
    const QString endpoint = m_eth.endpointText(); // a QUrl rendered: once, not per log
    for (const chain::LogEntry& log : batch.logs) {
        if (log.blockNumber > last)
            continue;
        checkBatchLog(log, batch.fromBlock, batch.toBlock, verified.blocks, m_config.contracts,
                      endpoint);
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

    // Far from the head, the next round's check of this batch's last block is asked now and
    // answered while the commit runs (HeadCheckAhead.h).
    if (backfill) {
        if (!m_headAhead)
            m_headAhead = std::make_unique<HeadCheckAhead>(m_config.rpcUrl, m_config.rpcTimeout,
                                                           m_config.stopToken);
        m_headAhead->ask(last, verified.blocks.back().hash);
    }
    const int attempts = m_rangeAttempts.value(batch.fromBlock, 0) + 1;
    const bool fullRange = last == batch.toBlock;
    const CommitStats stats = m_committer->commit(
        cp, verified, m_config.fromBlock, m_config.policyVersion(), kProjectionGeneration, [&] {
            if (backfill && fullRange)
                m_ledger->markDone(batch.fromBlock, last, attempts);
            if (m_ledgerOpen)
                m_ledger->closeCovered(last);
            // A range indexing stopped at, now committed with every check passed.
            if (m_openFetchAlerts) {
                CompletenessAlerts(m_db, m_config.environmentId, m_chainId).resolveCommitted(last);
                m_openFetchAlerts = hasOpenFetchAlerts();
            }
        });
    m_rangeAttempts.remove(batch.fromBlock);
    m_status.blocksCommitted += stats.blocks;
    m_status.logsCommitted += stats.logs;
    m_status.transfersCommitted += stats.transfers;
    m_status.decodeFailures += stats.decodeFailures;
    m_status.abiDecoded += stats.abiDecoded;
    m_status.abiUnmatched += stats.abiUnmatched;
    m_status.abiFailures += stats.abiFailures;
    m_status.truncationHalvings += batch.halvings;
    m_status.completeness += batch.completeness;
    m_status.checkpoint = last;
    m_troubleStreak = 0;
    result.accepted = true;
    result.expectedFromBlock = last + 1;
    return result;
}

void Indexer::onFetchFailure(std::uint64_t from, std::uint64_t to, const QString& error)
{
    ++m_status.fetchFailures;
    const int attempts = ++m_rangeAttempts[from];
    const bool givenUp = attempts >= m_config.maxRangeAttempts;
    if (to >= from)
        m_ledger->markFailure(from, to, attempts, error, givenUp);
    // Capped exponential backoff; a range is never skipped, only retried later.
    m_status.retryDelayMs = int(std::min<qint64>(30000, 100LL << std::min(attempts, 9)));
}

const IndexerStatus& Indexer::step()
{
    if (!m_prepared)
        prepare();
    m_status.retryDelayMs = 0;
    std::uint64_t plannedTo = 0;
    std::uint64_t from = 0;
    bool planned = false;
    try {
        auto cp = m_checkpoints->read();
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
                m_checkpoints->markVerified(*cp);
                m_sinceVerifiedWrite.start();
            }
        } else {
            head = m_eth.blockNumber();
            m_status.head = head;
        }

        // 2. The range the receiver expects next.
        from = cp ? cp->number + 1 : m_config.fromBlock;
        if (from > head) {
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
            if (cp &&
                (m_recheckDue || !m_sinceRecheck.isValid() || m_sinceRecheck.elapsed() > 10000)) {
                m_recheckDue = false;
                m_sinceRecheck.start();
                if (recheckForAbsence(*cp))
                    return m_status;
            }
            m_status.state = IndexerStatus::State::Synced;
            m_status.message.clear();
            return m_status;
        }
        // Range size and depth follow the last range's log count (FetchWindow.h).
        if (m_rangeBlocks == 0)
            m_rangeBlocks = std::max<std::uint64_t>(1, m_config.batchSize);
        if (m_nextRangeBlocks && *m_nextRangeBlocks != m_rangeBlocks) {
            m_rangeBlocks = *m_nextRangeBlocks;
            pool().cancel(); // ranges planned at the old size would not start where expected
        }
        m_nextRangeBlocks.reset();
        const std::uint64_t batchSize = m_rangeBlocks;
        // Far behind: a backfill, fetched by several workers in parallel and ledgered.
        const bool backfill = head - from + 1 > 2 * batchSize;
        const int depth = backfill ? fetch_window::depth(m_logsPerRange, pool().workers()) : 2;
        pool().plan(from, head, batchSize, depth);
        plannedTo = std::min(head, from + batchSize - 1);
        planned = true;
        if (backfill) {
            m_ledger->markRunning({{from, plannedTo}});
            m_ledgerOpen = true;
        }

        // 3. Wait for the fetchers' batch for exactly that start.
        const auto outcome = pool().take(from, m_config.rpcTimeout * 3);
        if (!outcome) {
            ++m_status.timeouts;
            onFetchFailure(from, plannedTo, QStringLiteral("no batch within the fetch timeout"));
            noteNodeTrouble(IndexerStatus::State::NodeUnreachable,
                            QStringLiteral("fetching %1..%2 timed out").arg(from).arg(plannedTo));
            return m_status;
        }
        if (outcome->truncatedBlock) {
            // Recorded before stopping: the app and the report keep saying "data incomplete"
            // after this run ends, until a repair fetches the block again.
            const QString node =
                outcome->truncationNode.isEmpty() ? m_eth.endpointText() : outcome->truncationNode;
            CompletenessAlerts(m_db, m_config.environmentId, m_chainId)
                .record(node, *outcome->truncatedBlock, *outcome->truncatedBlock,
                        outcome->truncationMessage);
            m_openFetchAlerts = true;
            throw wire::SuspectedTruncationError(*outcome->truncatedBlock,
                                                 outcome->truncationMessage, node);
        }
        if (outcome->mismatch)
            throw wire::ReplyMismatchError(*outcome->mismatch);
        if (outcome->rpcError) {
            if (outcome->rpcError->kind == rpc::RpcError::Kind::Timeout)
                ++m_status.timeouts;
            onFetchFailure(from, plannedTo, outcome->rpcError->toString());
            noteNodeTrouble(IndexerStatus::State::NodeUnreachable, outcome->rpcError->toString());
            return m_status;
        }
        const wire::WireBatch& batch = *outcome->batch;
        m_logsPerRange = std::max<qint64>(1, batch.logs.size());
        if (backfill) // near the head ranges are short anyway: no estimate from them
            m_nextRangeBlocks = fetch_window::rangeBlocks(m_rangeBlocks, batch.logs.size(),
                                                          batch.headers.size(), m_config.batchSize);
        if (batch.headers.isEmpty()) {
            m_status.state = IndexerStatus::State::NodeBehind;
            m_status.message = QStringLiteral("node answered null for block %1 below its head %2")
                                   .arg(from)
                                   .arg(head);
            return m_status;
        }

        // Block 0 is the genesis the environment was registered with: a batch that starts
        // there under another hash comes from a node that changed identity since this round
        // checked it, and must not be committed.
        if (batch.fromBlock == 0)
            checkNodeIdentity(m_chainId, batch.headers.first().hash);

        // 4. Data and checkpoint, one transaction.
        const Acceptance a = apply(cp, batch, backfill);
        if (m_status.state == IndexerStatus::State::Reorged)
            return m_status;
        if (!a.accepted) {
            m_pool->cancel();
            m_status.state = IndexerStatus::State::Syncing;
            m_status.message = a.reason;
            return m_status;
        }
        if (std::exchange(m_loseNextAck, false)) {
            // The acknowledgement is lost: the same batch arrives again. The cursor is the
            // idempotency key, so it is refused with where to start, never applied twice.
            const Acceptance again = apply(m_checkpoints->read(), batch, backfill);
            if (onResentBatch)
                onResentBatch(batch.fromBlock,
                              batch.fromBlock + std::uint64_t(batch.headers.size()) - 1, again);
            m_pool->cancel(); // the fetcher resumes from again.expectedFromBlock
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
            onFetchFailure(from, plannedTo, e.message());
        noteNodeTrouble(IndexerStatus::State::NodeInconsistent, e.message());
    } catch (const NodeInconsistentError& e) {
        noteNodeTrouble(IndexerStatus::State::NodeInconsistent, e.message());
    } catch (const NodeBehindError& e) {
        if (m_pool)
            m_pool->cancel();
        m_status.state = IndexerStatus::State::NodeBehind;
        m_status.message = e.message();
    } catch (const CheckpointMovedError& e) {
        // Another writer moved the cursor; the next round re-reads it.
        if (m_pool)
            m_pool->cancel();
        ++m_status.checkpointConflicts;
        m_status.state = IndexerStatus::State::Syncing;
        m_status.message = e.message();
    }
    return m_status;
}

} // namespace forkscope::indexer
