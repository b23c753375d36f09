#include "Indexer.h"
#include "IndexerErrors.h"
#include "rpc/EthClient.h"
#include "store/Database.h"

#include <QCoreApplication>
#include <algorithm>

namespace forkscope::indexer {

Indexer::Indexer(IndexerConfig config, store::Database& db, rpc::EthClient& eth)
    : m_config(std::move(config)), m_db(db), m_eth(eth)
{
}

Indexer::~Indexer()
{
    dropPrefetch();
}

rpc::LogFilter Indexer::logFilter(std::uint64_t from, std::uint64_t to) const
{
    rpc::LogFilter filter;
    filter.fromBlock = from;
    filter.toBlock = to;
    filter.addresses = m_config.contracts;
    return filter;
}

Indexer::Prefetch Indexer::request(std::uint64_t from, std::uint64_t to)
{
    Prefetch p{from, to, m_eth.requestBlocks(from, to), nullptr};
    if (!m_config.contracts.isEmpty())
        p.logs = m_eth.requestLogs(logFilter(from, to));
    return p;
}

void Indexer::dropPrefetch()
{
    if (m_prefetch) {
        delete m_prefetch->headers;
        delete m_prefetch->logs;
        m_prefetch.reset();
    }
}

void Indexer::prepare()
{
    m_chainId = m_eth.chainId();
    const auto genesis = m_eth.blockByNumber(0);
    if (!genesis)
        throw NodeBehindError(QStringLiteral("node answered null for the genesis block"));
    EnvironmentRegistry(m_db).openForIndexing(m_config.environmentId, m_chainId, genesis->hash,
                                              m_config.rpcUrl);
    m_checkpoints = std::make_unique<CheckpointStore>(m_db, m_config.environmentId, m_chainId,
                                                      m_config.sourceId);
    const QStringList others = m_checkpoints->otherSources();
    if (!others.isEmpty())
        throw IndexerError(QStringLiteral("environment %1 is already indexed by source %2; one "
                                          "source per environment (use another --env)")
                               .arg(m_config.environmentId, others.join(QStringLiteral(", "))));
    if (const auto cp = m_checkpoints->read()) {
        if (cp->generation != kProjectionGeneration)
            throw GenerationMismatchError(
                QStringLiteral("the checkpoint of %1 was computed by projection generation %2, "
                               "this build is generation %3; re-index into a new --env")
                    .arg(m_config.environmentId)
                    .arg(cp->generation)
                    .arg(kProjectionGeneration));
        if (cp->startBlock != m_config.fromBlock && m_config.fromBlock != 0)
            throw IndexerError(QStringLiteral("environment %1 was started at block %2, not %3; "
                                              "use another --env for another start block")
                                   .arg(m_config.environmentId)
                                   .arg(cp->startBlock)
                                   .arg(m_config.fromBlock));
    }
    m_balances = std::make_unique<BalanceBook>(m_db, m_config.environmentId, m_chainId);
    m_committer = std::make_unique<BatchCommitter>(m_db, m_config.environmentId, m_chainId,
                                                   *m_checkpoints, *m_balances);
    m_rollback = std::make_unique<ReorgRollback>(m_db, m_config.environmentId, m_chainId,
                                                 m_config.sourceId, *m_checkpoints, *m_balances);
    m_forkFinder = std::make_unique<ForkFinder>(m_eth, m_db, m_config.environmentId, m_chainId);
    m_prepared = true;
}

void Indexer::rollBack(const Checkpoint& cp, const QString& reason)
{
    const ForkPoint fork = m_forkFinder->find(cp, m_config.maxReorgDepth);
    const RollbackResult r = m_rollback->rollback(cp, fork, reason);
    ++m_status.reorgs;
    m_status.state = IndexerStatus::State::Reorged;
    m_status.checkpoint = r.forkBlock >= 0 && fork.number ? std::optional<std::uint64_t>(*fork.number)
                                                          : std::nullopt;
    m_status.message = QStringLiteral("%1 at checkpoint %2: fork at %3, depth %4, %5 rows removed")
                           .arg(reason)
                           .arg(r.oldCheckpoint)
                           .arg(r.forkBlock)
                           .arg(r.depth)
                           .arg(r.rowsRemoved);
    if (onReorg)
        onReorg(r, reason);
}

void Indexer::verifyLogs(const VerifiedBatch& batch) const
{
    const std::uint64_t first = batch.blocks.front().number;
    const std::uint64_t last = batch.blocks.back().number;
    for (const auto& log : batch.logs) {
        if (log.blockNumber < first || log.blockNumber > last)
            throw rpc::RpcException(rpc::RpcError{
                rpc::RpcError::Kind::Malformed, QStringLiteral("eth_getLogs"),
                m_config.rpcUrl.toString(), 0, 0,
                QStringLiteral("log in block %1 outside the requested range %2..%3")
                    .arg(log.blockNumber)
                    .arg(first)
                    .arg(last),
                {}});
        if (log.removed || batch.blocks.at(qsizetype(log.blockNumber - first)).hash != log.blockHash)
            throw NodeBehindError(QStringLiteral("block %1 changed between the header and the log "
                                                 "query; retrying the round")
                                      .arg(log.blockNumber));
    }
}

const IndexerStatus& Indexer::step()
{
    if (!m_prepared)
        prepare();
    try {
        auto cp = m_checkpoints->read();
        m_status.checkpoint = cp ? std::optional<std::uint64_t>(cp->number) : std::nullopt;

        // 1. Before going forward, confirm we are still on the node's chain (the head and
        //    the checkpoint's block in one round trip).
        std::uint64_t head = 0;
        if (cp) {
            const auto [nodeHead, onChain] = m_eth.headAndBlock(cp->number);
            head = nodeHead;
            m_status.head = head;
            if (head < cp->number || !onChain) {
                // A lagging or syncing node: its null says "not reached", not "gone".
                dropPrefetch();
                m_status.state = IndexerStatus::State::NodeBehind;
                m_status.message = QStringLiteral("node head %1 is below the checkpoint %2; "
                                                  "waiting (not a reorg until a hash disagrees)")
                                       .arg(head)
                                       .arg(cp->number);
                return m_status;
            }
            if (onChain->hash != cp->hash) {
                dropPrefetch();
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

        // 2. This round's range: the one fetched ahead if it starts right here.
        const std::uint64_t from = cp ? cp->number + 1 : m_config.fromBlock;
        if (from > head) {
            dropPrefetch();
            m_status.state = IndexerStatus::State::Synced;
            m_status.message.clear();
            return m_status;
        }
        const std::uint64_t batchSize = std::max<std::uint64_t>(1, m_config.batchSize);
        if (m_prefetch && m_prefetch->from != from)
            dropPrefetch();
        Prefetch current = m_prefetch ? *m_prefetch : request(from, std::min(head, from + batchSize - 1));
        m_prefetch.reset();
        auto headersCall = std::unique_ptr<rpc::RpcCall>(current.headers);
        auto logsCall = std::unique_ptr<rpc::RpcCall>(current.logs);
        const auto headers = m_eth.takeBlocks(headersCall.release(), from);

        VerifiedBatch batch;
        const chain::Hash32* previous = cp ? &cp->hash : nullptr;
        for (const auto& h : headers) {
            if (!h) // the node's head moved back or it is syncing: commit what links
                break;
            if (previous && h->parentHash != *previous) {
                if (batch.blocks.isEmpty()) {
                    // The block after our checkpoint does not build on it: the checkpoint
                    // was reorged out between the re-check and now.
                    rollBack(*cp, reorg_reason::kParentMismatch);
                    return m_status;
                }
                break; // the head changed mid-fetch: keep the linked prefix, re-judge next round
            }
            batch.blocks.append(*h);
            previous = &batch.blocks.last().hash;
        }
        if (batch.blocks.isEmpty()) {
            m_status.state = IndexerStatus::State::NodeBehind;
            m_status.message = QStringLiteral("node answered null for block %1 below its head %2")
                                   .arg(from)
                                   .arg(head);
            return m_status;
        }

        // 3. Logs of the configured contracts for exactly those blocks.
        if (logsCall) {
            batch.logs = m_eth.takeLogs(logsCall.release());
            const std::uint64_t last = batch.blocks.back().number;
            if (last < current.to) // keep only the linked prefix's logs
                batch.logs.removeIf([last](const chain::LogEntry& l) { return l.blockNumber > last; });
            std::sort(batch.logs.begin(), batch.logs.end(), [](const auto& a, const auto& b) {
                return std::tie(a.blockNumber, a.logIndex) < std::tie(b.blockNumber, b.logIndex);
            });
            verifyLogs(batch);
        }

        // Fetch ahead while this batch commits.
        const std::uint64_t last = batch.blocks.back().number;
        if (last == current.to && last < head) {
            m_prefetch = request(last + 1, std::min(head, last + batchSize));
            // QNetworkAccessManager starts a request from this thread's event queue; hand it
            // to Qt's HTTP thread now, or it would only leave after the commit.
            QCoreApplication::sendPostedEvents(nullptr, QEvent::MetaCall);
        }

        // 4. Data and checkpoint, one transaction.
        const CommitStats stats = m_committer->commit(cp, batch, m_config.fromBlock,
                                                      m_config.policyVersion(),
                                                      kProjectionGeneration);
        m_status.blocksCommitted += stats.blocks;
        m_status.logsCommitted += stats.logs;
        m_status.transfersCommitted += stats.transfers;
        m_status.decodeFailures += stats.decodeFailures;
        m_status.checkpoint = last;
        // Even at the head this is "syncing": "synced" is only said after the next round
        // re-checked the checkpoint against the node.
        m_status.state = IndexerStatus::State::Syncing;
        m_status.message.clear();
    } catch (const rpc::RpcException& e) {
        // The node did not answer (or answered nonsense): that says nothing about the chain.
        dropPrefetch();
        m_status.state = IndexerStatus::State::NodeUnreachable;
        m_status.message = e.error().toString();
    } catch (const NodeBehindError& e) {
        dropPrefetch();
        m_status.state = IndexerStatus::State::NodeBehind;
        m_status.message = e.message();
    } catch (const CheckpointMovedError& e) {
        // Another writer moved the cursor; the next round re-reads it.
        dropPrefetch();
        ++m_status.checkpointConflicts;
        m_status.state = IndexerStatus::State::Syncing;
        m_status.message = e.message();
    } catch (...) {
        dropPrefetch();
        throw;
    }
    return m_status;
}

} // namespace forkscope::indexer
