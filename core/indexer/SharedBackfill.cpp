#include "SharedBackfill.h"
#include "CrashPoints.h"
#include "IndexerErrors.h"
#include "NodeWait.h"
#include "PgBatchRows.h"
#include "SharedSession.h"
#include "StaleRange.h"
#include "concurrency/StoppablePause.h"
#include "coord/BackfillClaims.h"
#include "coord/CoordinationErrors.h"
#include "coord/PrefixCheckpoint.h"
#include "rpc/EthClient.h"
#include "rpc/RpcError.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"
#include "wire/LogFetcher.h"
#include "wire/ReplyMismatchError.h"

#include <QElapsedTimer>
#include <QThread>

namespace forkscope::indexer {

using store::pg::PgConnection;

SharedBackfill::SharedBackfill(Options options) : m_options(std::move(options)) {}

SharedBackfillResult SharedBackfill::run(const std::function<void(const QString&)>& say)
{
    const IndexerConfig& c = m_options.indexer;
    const auto stop = c.stopToken;
    SharedBackfillResult result;
    std::unique_ptr<SharedSession> opened;
    std::uint64_t head = 0;
    if (!waitForNode(
            [&] {
                opened = std::make_unique<SharedSession>(c, m_options.owner);
                head = opened->eth().blockNumber();
            },
            QStringLiteral("starting the backfill of %1").arg(c.environmentId), say, stop)) {
        result.stopped = true;
        return result;
    }
    result.started = true;
    SharedSession& session = *opened;
    PgConnection* db = &session.db();
    rpc::EthClient& eth = session.eth();
    const qint64 chainId = session.chainId();
    const QByteArray env = c.environmentId.toUtf8();
    result.chainId = chainId;
    if (head < c.fromBlock + c.confirmations)
        throw IndexerError(QStringLiteral("the node's head %1 is below --from-block %2 plus %3 "
                                          "confirmations: nothing is safe to backfill yet")
                               .arg(head)
                               .arg(c.fromBlock)
                               .arg(c.confirmations));
    result.target = qint64(head - c.confirmations);

    coord::BackfillClaims claims(*db, c.environmentId, chainId, m_options.owner, m_options.lease);
    coord::PrefixCheckpoint checkpoint(*db, c.environmentId, chainId, c.sourceId);
    // The checkpoint starts just below the first block, with that block's parent hash, so
    // the first range chains on from it like every other.
    chain::Hash32 startHash;
    if (c.fromBlock > 0) {
        const auto below = eth.blockByNumber(c.fromBlock - 1);
        if (!below)
            throw NodeBehindError(QStringLiteral("node answered null for block %1 below its "
                                                 "head %2")
                                      .arg(c.fromBlock - 1)
                                      .arg(head));
        startHash = below->hash;
    }
    checkpoint.initialise(qint64(c.fromBlock) - 1, startHash);
    claims.plan(qint64(c.fromBlock), result.target,
                qint64(std::max<std::uint64_t>(1, c.batchSize)));
    if (const qint64 retried = claims.retryFailed(); retried > 0)
        say(QStringLiteral("%1 range(s) that failed before are tried again").arg(retried));

    wire::LogFetcher fetcher(eth, session.fetchSpec());
    const QString endpoint = eth.endpointText();

    // A failure of the range's own (a reply that does not match the request, a suspected
    // truncation, a node error, a reorg between two queries): the range goes back, counted;
    // after 5 attempts it is marked failed and the checkpoint stops below it. False when
    // asked to stop: then the range goes back uncounted, not being its fault.
    const auto countFailure = [&](const coord::RangeClaim& claim, const QString& error) {
        if (stop && stop->stopRequested()) {
            claims.release(claim);
            return false;
        }
        claims.fail(claim, error);
        say(QStringLiteral("range %1-%2: %3; given back to be retried")
                .arg(claim.fromBlock)
                .arg(claim.toBlock)
                .arg(error));
        concurrency::pauseUnlessStopped(std::chrono::milliseconds(100), stop);
        return true;
    };
    int unavailable = 0; // the node's consecutive unavailabilities, for the backoff
    // Back, uncounted: not the range's fault. This process waits, backing off.
    const auto giveBack = [&](const coord::RangeClaim& claim, const QString& why) {
        claims.release(claim);
        const std::chrono::milliseconds wait = nodeBackoff(++unavailable);
        say(QStringLiteral("range %1-%2: %3: given back, not counted against the range; next "
                           "try in %4 ms")
                .arg(claim.fromBlock)
                .arg(claim.toBlock)
                .arg(why)
                .arg(wait.count()));
        concurrency::pauseUnlessStopped(wait, stop);
    };
    // A reply that contradicts its request (a log nobody asked for, outside the range or
    // under another block hash; headers that do not link) is the node's fault, not the
    // range's: the same lie would meet any range. Counted, a provider lying for a second
    // would fail every range it touched and stop every process, where the SQLite indexer
    // shows the node as inconsistent and retries with a growing backoff; so does this.
    // Nothing of the range was committed (its transaction was rolled back).
    const auto giveBackFromInconsistentNode = [&](const coord::RangeClaim& claim,
                                                  const QString& error) {
        giveBack(claim, QStringLiteral("%1; the node is inconsistent").arg(error));
    };
    // A range failed: the node's head now below its last block (a lagging replica, or a
    // reorg to a shorter chain since the ranges were planned) is not the range's fault
    // either, and waiting for the chain to grow past it is all there is to do; counted, it
    // would fail the range after five tries, and the process would exit. Else it counts.
    const auto failOrGiveBack = [&](const coord::RangeClaim& claim, const QString& error) {
        if (!(stop && stop->stopRequested())) {
            std::optional<std::uint64_t> now;
            try {
                now = eth.blockNumber();
            } catch (const rpc::RpcException&) {
                // the node cannot say: as unavailable
            }
            if (!now || qint64(*now) < claim.toBlock) {
                giveBack(claim, QStringLiteral("%1; the node's head %2 is below the range")
                                    .arg(error, now ? QString::number(*now)
                                                    : QStringLiteral("(unknown)")));
                return true;
            }
        }
        return countFailure(claim, error);
    };
    // Every range done and the checkpoint below the last: a range stored from another branch
    // (StaleRange.h) goes back to be fetched again, while the checkpoint's block is still
    // the node's. True when there is more to do (a range reopened, here or by another).
    const auto reopenedStaleRange = [&] {
        const coord::SharedCheckpoint cp = checkpoint.advance();
        if (cp.blockNumber >= 0) {
            std::optional<chain::BlockHeader> onNode;
            if (!waitForNode(
                    [&] { onNode = eth.blockByNumber(std::uint64_t(cp.blockNumber)); },
                    QStringLiteral("checking block %1 against the node").arg(cp.blockNumber), say,
                    stop))
                return false; // asked to stop
            if (!onNode || onNode->hash != cp.blockHash)
                return false; // a reorg below the checkpoint: the head follower's
        }
        const std::optional<ReopenedRange> r =
            reopenRangeFromAnotherBranch(*db, c.environmentId, chainId, cp);
        if (r)
            say(QStringLiteral("range %1-%2 was stored from another branch than block %3, the "
                               "checkpoint (a reorg during the backfill): its %4 rows, never "
                               "visible, removed; fetching it again")
                    .arg(r->fromBlock)
                    .arg(r->toBlock)
                    .arg(cp.blockNumber)
                    .arg(r->rowsRemoved));
        return r.has_value() || !claims.counts().allDone();
    };
    while (!(stop && stop->stopRequested())) {
        const std::optional<coord::RangeClaim> claim = claims.claim();
        if (!claim) {
            const coord::RangeCounts n = claims.counts();
            if (n.failed > 0)
                throw coord::CoordinationError(
                    QStringLiteral("%1 backfill range(s) of %2 failed 5 times, the first %3; "
                                   "the checkpoint stays below it. Fix the node (or pass "
                                   "another --rpc) and start forkscope index again: failed "
                                   "ranges are retried")
                        .arg(n.failed)
                        .arg(c.environmentId, claims.firstFailed()));
            if (n.allDone()) {
                if (reopenedStaleRange())
                    continue;
                break;
            }
            // Ranges others hold: wait, and take one over once its owner is gone or its
            // lease runs out.
            if (m_options.betweenRanges)
                m_options.betweenRanges(chainId);
            concurrency::pauseUnlessStopped(std::chrono::milliseconds(100), stop);
            continue;
        }
        if (!claim->takenOverFrom.isEmpty()) {
            ++result.takeovers;
            say(QStringLiteral("range %1-%2: taken over from %3, %4")
                    .arg(claim->fromBlock)
                    .arg(claim->toBlock)
                    .arg(claim->takenOverFrom, claim->ownerGone
                                                   ? QStringLiteral("whose process is gone")
                                                   : QStringLiteral("whose lease ran out")));
        }
        PgBatchRows rows(c.environmentId, chainId);
        QElapsedTimer sinceRenew;
        sinceRenew.start();
        bool lost = false;
        try {
            // The fetcher may return less than asked (provider limits): fetch on from where
            // it stopped, renewing the lease between pieces.
            std::uint64_t next = std::uint64_t(claim->fromBlock);
            const std::uint64_t to = std::uint64_t(claim->toBlock);
            while (next <= to && !lost) {
                const wire::WireBatch batch = fetcher.fetch(next, to, head);
                if (batch.headers.isEmpty() || batch.toBlock < next)
                    throw NodeBehindError(QStringLiteral("node %1 returned no header for block "
                                                         "%2, below the head %3 it announced")
                                              .arg(endpoint)
                                              .arg(next)
                                              .arg(head));
                rows.append(batch, next, c.contracts, endpoint);
                next = batch.toBlock + 1;
                if (sinceRenew.elapsed() > m_options.lease.count() / 3) {
                    lost = !claims.renew(*claim);
                    sinceRenew.restart();
                }
            }
            if (!lost) {
                // The range's rows and its done mark: one transaction (docs/design.md,
                // "Data and checkpoint commit together"), so a crash leaves both or neither, and a
                // range taken over meanwhile rolls back.
                db->begin();
                rows.copyInto(*db);
                claims.finish(*claim, rows.headers().first().parentHash,
                              rows.headers().last().hash);
                crashPoint("before-commit");
                db->commit();
                crashPoint("after-commit");
            }
        } catch (const coord::LeaseLostError&) {
            db->rollback();
            lost = true;
        } catch (const store::StoreError&) {
            db->rollback();
            throw; // the database itself: nothing this process can do about it
        } catch (const rpc::RpcException& e) {
            db->rollback();
            // The node unreachable, slow or failing over HTTP says nothing about the range:
            // it goes back uncounted, and this process waits, backing off, as the SQLite
            // indexer does. Counting it would mark every range failed within a second of
            // an outage, and the process would exit with the node back a moment later.
            if (e.error().isUnavailability() && !(stop && stop->stopRequested())) {
                giveBack(
                    *claim,
                    QStringLiteral("%1; the node is unavailable").arg(QString::fromUtf8(e.what())));
                continue;
            }
            if (!failOrGiveBack(*claim, QString::fromUtf8(e.what())))
                break;
            continue;
        } catch (const wire::ReplyMismatchError& e) {
            db->rollback();
            giveBackFromInconsistentNode(*claim, e.message());
            continue;
        } catch (const NodeInconsistentError& e) {
            db->rollback();
            giveBackFromInconsistentNode(*claim, e.message());
            continue;
        } catch (const std::exception& e) {
            db->rollback();
            if (!failOrGiveBack(*claim, QString::fromUtf8(e.what())))
                break;
            continue;
        }
        if (lost) {
            ++result.lostRanges;
            say(QStringLiteral("range %1-%2: another process took it over after this one's "
                               "lease ran out; its rows here were rolled back")
                    .arg(claim->fromBlock)
                    .arg(claim->toBlock));
            continue;
        }
        unavailable = 0;
        ++result.rangesDone;
        result.blocks += claim->toBlock - claim->fromBlock + 1;
        result.logs += rows.logCount();
        result.checkpoint = checkpoint.advance().blockNumber;
        say(QStringLiteral("range %1-%2 stored (%3 logs); checkpoint %4")
                .arg(claim->fromBlock)
                .arg(claim->toBlock)
                .arg(rows.logCount())
                .arg(result.checkpoint));
        if (m_options.betweenRanges)
            m_options.betweenRanges(chainId);
    }
    result.stopped = stop && stop->stopRequested();
    result.checkpoint = checkpoint.advance().blockNumber;
    return result;
}

} // namespace forkscope::indexer
