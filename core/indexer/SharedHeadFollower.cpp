#include "SharedHeadFollower.h"
#include "AbsenceCheck.h"
#include "CrashPoints.h"
#include "ForkFinder.h"
#include "IndexerErrors.h"
#include "NodeWait.h"
#include "PgBatchRows.h"
#include "PgEnvironmentRegistry.h"
#include "PgReorgDiff.h"
#include "ReorgReason.h"
#include "SharedSession.h"
#include "concurrency/StoppablePause.h"
#include "coord/BackfillClaims.h"
#include "coord/FailedRanges.h"
#include "coord/PrefixCheckpoint.h"
#include "coord/SessionLock.h"
#include "rpc/EthClient.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"
#include "wire/LogFetcher.h"
#include "wire/SuspectedTruncationError.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QSet>
#include <limits>

namespace forkscope::indexer {

using store::pg::PgConnection;

namespace {

// A reorg this build cannot undo on PostgreSQL: stop, loudly, before deleting anything.
class SharedRollbackRefused : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

// Checks a repair from block `from` and rolls back to from - 1 (see Options::repairFrom);
// returns the checkpoint to index up to again. Nothing is changed when it throws.
template <typename Undo>
qint64 rollBackForRepair(PgConnection& db, const QString& env, qint64 chainId,
                         coord::SessionLock& lock, coord::BackfillClaims& ranges,
                         coord::PrefixCheckpoint& checkpoint, std::uint64_t from,
                         const Undo& undoAbove, const std::function<void(const QString&)>& say)
{
    if (!lock.tryAcquire())
        throw IndexerError(QStringLiteral("another process follows the head of %1 (it holds the "
                                          "head lock): stop it, repair, then start it again; "
                                          "nothing was changed")
                               .arg(env));
    const std::optional<coord::SharedCheckpoint> cp = checkpoint.read();
    if (const coord::RangeCounts n = ranges.counts(); n.failed > 0)
        throw IndexerError(QStringLiteral("a backfill range of %1 failed (%2): start forkscope "
                                          "index again, which retries it, then repair; nothing "
                                          "was changed")
                               .arg(env, ranges.firstFailed()));
    if (!cp || !ranges.counts().allDone())
        throw IndexerError(QStringLiteral("the backfill of %1 is not complete: repair once every "
                                          "range is done; nothing was changed")
                               .arg(env));
    // The block below `from`, as stored: the first range's parent when `from` is the first
    // block indexed.
    const QList<QByteArray> scope{env.toUtf8(), QByteArray::number(chainId)};
    const auto below = db.run(
        "repair_below",
        "SELECT coalesce((SELECT block_hash FROM block_store WHERE environment_id = $1 AND "
        "chain_id = $2 AND block_number = $3 - 1), (SELECT parent_hash FROM backfill_ranges "
        "WHERE environment_id = $1 AND chain_id = $2 AND from_block = $3 AND status = "
        "'done')), (SELECT min(from_block) FROM backfill_ranges WHERE environment_id = $1 AND "
        "chain_id = $2)",
        scope + QList<QByteArray>{QByteArray::number(qulonglong(from))});
    const qint64 start = below.isNull(0, 1) ? 0 : below.int64(0, 1);
    if (qint64(from) < start || qint64(from) > cp->blockNumber || from == 0 || below.isNull(0, 0))
        throw IndexerError(QStringLiteral("--from %1 is not a block of %2 to repair: it must lie "
                                          "in %3..%4 (the first block indexed to the "
                                          "checkpoint), above block 0; nothing was changed")
                               .arg(from)
                               .arg(env)
                               .arg(std::max<qint64>(start, 1))
                               .arg(cp->blockNumber));
    ForkPoint fork;
    fork.number = from - 1;
    fork.hash = chain::Hash32::fromBytes(below.bytes(0, 0, 32), QStringLiteral("stored hash"));
    if (!undoAbove(*cp, fork, reorg_reason::kRepair))
        throw IndexerError(QStringLiteral("the checkpoint of %1 moved while it was repaired; "
                                          "nothing was changed: run repair again")
                               .arg(env));
    say(QStringLiteral("repair: rolled back to block %1; indexing %2..%3 again")
            .arg(from - 1)
            .arg(from)
            .arg(cp->blockNumber));
    return cp->blockNumber;
}

} // namespace

SharedHeadFollower::SharedHeadFollower(Options options) : m_options(std::move(options)) {}

SharedFollowResult SharedHeadFollower::run(const std::function<void(const QString&)>& say)
{
    const IndexerConfig& c = m_options.indexer;
    const auto stop = c.stopToken;
    const auto stopping = [&] { return stop && stop->stopRequested(); };
    // Following waits for a node that is down, as the backfill does; a repair is a command
    // run by hand, which says at once that the node cannot be reached.
    std::unique_ptr<SharedSession> opened;
    const auto openSession = [&] { opened = std::make_unique<SharedSession>(c, m_options.owner); };
    if (m_options.repairFrom)
        openSession();
    else if (!waitForNode(openSession,
                          QStringLiteral("following the head of %1").arg(c.environmentId), say,
                          stop))
        return SharedFollowResult{};
    SharedSession& session = *opened;
    PgConnection* db = &session.db();
    rpc::EthClient& eth = session.eth();
    const qint64 chainId = session.chainId();
    const QByteArray env = c.environmentId.toUtf8();
    const QByteArray chain = QByteArray::number(chainId);
    const QString endpoint = eth.endpointText();

    coord::SessionLock lock(*db, QStringLiteral("head"), c.environmentId, chainId);
    coord::BackfillClaims ranges(*db, c.environmentId, chainId, m_options.owner,
                                 std::chrono::seconds(30));
    coord::PrefixCheckpoint checkpoint(*db, c.environmentId, chainId, c.sourceId);
    ForkFinder finder(eth, [&](std::uint64_t n) -> std::optional<chain::Hash32> {
        const auto r = db->run("follow_stored_hash",
                               "SELECT block_hash FROM block_store WHERE environment_id = $1 "
                               "AND chain_id = $2 AND block_number = $3",
                               {env, chain, QByteArray::number(qint64(n))});
        if (r.rows() == 0)
            return std::nullopt;
        return chain::Hash32::fromBytes(r.bytes(0, 0, 32),
                                        QStringLiteral("block_store.block_hash"));
    });
    wire::LogFetcher fetcher(eth, session.fetchSpec());

    SharedFollowResult result;
    const auto pause = [&] {
        if (m_options.betweenRounds)
            m_options.betweenRounds();
        concurrency::pauseUnlessStopped(c.pollInterval, stop);
    };
    // Undoes everything above `fork` in one transaction: the rows, their undelivered outbox
    // rows, the ranges that covered them, with a reorg_events row, and moves the checkpoint
    // back by compare-and-swap (false: another writer moved it; look again).
    const auto undoAbove = [&](const coord::SharedCheckpoint& cp, const ForkPoint& fork,
                               const QString& reason) -> bool {
        const QByteArray above = QByteArray::number(qint64(*fork.number));
        db->begin();
        PgEnvironmentRegistry(*db).requireLive(c.environmentId);
        const qint64 delivered =
            db->run("follow_delivered_above",
                    "SELECT count(*) FROM outbox_store WHERE environment_id = $1 AND chain_id = "
                    "$2 AND block_number > $3 AND delivered_at IS NOT NULL",
                    {env, chain, above})
                .int64(0, 0);
        const qint64 depth = cp.blockNumber - qint64(*fork.number);
        const qint64 reorgId =
            db->run("follow_reorg_event",
                    "INSERT INTO reorg_events (environment_id, chain_id, detected_at, "
                    "old_block_number, fork_block_number, depth, reason, rows_removed, "
                    "source_id, old_block_hash, fork_block_hash, delivered_outbox_rows) VALUES "
                    "($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, $11) RETURNING id",
                    {env, chain,
                     QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toUtf8(),
                     QByteArray::number(cp.blockNumber), above, QByteArray::number(depth),
                     reason.toUtf8(), c.sourceId.toUtf8(), cp.blockHash.toHex().toUtf8(),
                     fork.hash.toHex().toUtf8(), QByteArray::number(delivered)})
                .int64(0, 0);
        recordPgReorgDiff(*db, {env, chain, above, QByteArray::number(reorgId),
                                QByteArray::number(cp.blockNumber)});
        if (delivered > 0) {
            // A consumer already acted on those (as in SQLite, ReorgRollback): a compensating
            // "retracted" message for each, enqueued at the fork height so that it goes out
            // as soon as the fork is indexed; then the delivered rows outlive their logs,
            // keeping the key and payload the consumer received as text.
            db->run("follow_retract",
                    "INSERT INTO outbox_store (environment_id, chain_id, block_number, "
                    "event_key, payload) SELECT environment_id, chain_id, $3::bigint, "
                    "'retract:' || event_key, '{\"type\":\"retracted\",\"eventKey\":\"' || "
                    "event_key || '\",\"reorgId\":' || $4::bigint || ',\"forkBlock\":' || "
                    "$3::bigint || ',\"original\":' || payload || '}' FROM outbox WHERE "
                    "environment_id = $1 AND chain_id = $2 AND block_number > $3::bigint AND "
                    "delivered_at IS NOT NULL AND event_key NOT LIKE 'retract:%' ON CONFLICT DO "
                    "NOTHING",
                    {env, chain, above, QByteArray::number(reorgId)});
            const QByteArray keep =
                "UPDATE outbox_store o SET event_key = " + store::pg::pgOutboxEventKeySql() +
                ", payload = " + store::pg::pgOutboxPayloadSql() +
                ", log_index = NULL FROM log_store l WHERE o.environment_id "
                "= $1 AND o.chain_id = $2 AND o.block_number > $3 AND "
                "o.delivered_at IS NOT NULL AND o.log_index IS NOT NULL AND "
                "l.environment_id = o.environment_id AND l.chain_id = "
                "o.chain_id AND l.block_number = o.block_number AND "
                "l.log_index = o.log_index";
            db->run("follow_keep_delivered", keep.constData(), {env, chain, above});
        }
        const qint64 removed =
            PgBatchRows::removeBlocks(*db, env, chain, qint64(*fork.number) + 1,
                                      std::numeric_limits<qint64>::max()) +
            db->run("follow_cut_ranges",
                    "DELETE FROM backfill_ranges WHERE environment_id = $1 AND chain_id = $2 AND "
                    "from_block > $3",
                    {env, chain, above})
                .affected();
        db->run("follow_cut_range",
                "UPDATE backfill_ranges SET to_block = $3, last_hash = $4 WHERE environment_id "
                "= $1 AND chain_id = $2 AND from_block <= $3 AND to_block > $3",
                {env, chain, above, PgConnection::byteaParam(fork.hash.toByteArray())});
        db->run("follow_reorg_removed", "UPDATE reorg_events SET rows_removed = $2 WHERE id = $1",
                {QByteArray::number(reorgId), QByteArray::number(removed)});
        crashPoint("mid-rollback");

        if (!checkpoint.swap(cp, qint64(*fork.number), fork.hash)) {
            // another writer moved it meanwhile: look again
            db->rollback();
            return false;
        }
        db->commit();
        ++result.reorgs;
        say(QStringLiteral("REORG (%1): checkpoint %2 -> fork %3, depth %4, %5 rows removed, "
                           "%6 delivered outbox rows retracted")
                .arg(reason)
                .arg(cp.blockNumber)
                .arg(*fork.number)
                .arg(depth)
                .arg(removed)
                .arg(delivered));
        return true;
    };

    // Where the stored branch and the node's part, undone in one transaction.
    const auto rollBack = [&](const coord::SharedCheckpoint& cp,
                              std::optional<std::uint64_t> nodeHead, const QString& reason) {
        Checkpoint asIndexed;
        asIndexed.number = std::uint64_t(cp.blockNumber);
        asIndexed.hash = cp.blockHash;
        // An archived environment's chain was reset on purpose: not a reorg to search for.
        PgEnvironmentRegistry(*db).requireLive(c.environmentId);
        const ForkPoint fork = finder.find(asIndexed, c.maxReorgDepth, nodeHead);
        if (!fork.number)
            throw SharedRollbackRefused(
                QStringLiteral("no stored block of %1 is on the node's chain any more: index "
                               "into a new --env")
                    .arg(c.environmentId));
        if (qint64(*fork.number) >= cp.blockNumber)
            // The node agrees with the checkpoint after all (a flapping or load-balanced node
            // answered two branches): nothing stored is wrong, and a depth-0 "reorg" is never
            // recorded. The round is tried again.
            throw NodeInconsistentError(
                QStringLiteral("node %1 answered another hash for a block up to %2 (%3), then "
                               "the stored one: an inconsistent node, not a reorg; nothing "
                               "rolled back")
                    .arg(endpoint)
                    .arg(cp.blockNumber)
                    .arg(reason));
        undoAbove(cp, fork, reason);
    };

    // Seed 003's absence inference at the head, as the SQLite indexer does it
    // (AbsenceCheck.h): stored logs of the last --absence-window blocks the node no longer
    // returns are said and counted; only a header that contradicts a stored hash rolls back.
    // Looked at again once new blocks are stored, and every 10 s at rest.
    QElapsedTimer sinceAbsenceCheck;
    bool absenceCheckDue = true;
    // True when it rolled back.
    const auto recheckForAbsence = [&](const coord::SharedCheckpoint& cp) {
        if (!absenceCheckDue && sinceAbsenceCheck.isValid() && sinceAbsenceCheck.elapsed() < 10'000)
            return false;
        absenceCheckDue = false;
        sinceAbsenceCheck.start();
        const auto first = db->run("follow_first_block",
                                   "SELECT min(from_block) FROM backfill_ranges WHERE "
                                   "environment_id = $1 AND chain_id = $2",
                                   {env, chain});
        const auto window = absenceWindow(c.absenceWindow,
                                          first.isNull(0, 0) ? 0 : std::uint64_t(first.int64(0, 0)),
                                          std::uint64_t(cp.blockNumber));
        if (c.contracts.isEmpty() || !window)
            return false;
        QSet<LogAt> held;
        const auto stored = db->run("follow_held_logs",
                                    "SELECT block_number, log_index FROM log_store WHERE "
                                    "environment_id = $1 AND chain_id = $2 AND block_number "
                                    "BETWEEN $3 AND $4",
                                    {env, chain, QByteArray::number(qulonglong(window->first)),
                                     QByteArray::number(qulonglong(window->second))});
        for (int row = 0; row < stored.rows(); ++row)
            held.insert({std::uint64_t(stored.int64(row, 0)), std::uint64_t(stored.int64(row, 1))});
        const AbsenceFinding finding = checkForAbsence(
            eth, *window, c.contracts, held, [&](std::uint64_t n) { return finder.storedHash(n); });
        if (finding.blocks.isEmpty())
            return false;
        ++result.absenceSuspicions;
        say(describeAbsence(finding));
        if (!finding.contradicted)
            return false;
        rollBack(cp, std::nullopt, reorg_reason::kAbsence);
        return true;
    };

    // `forkscope repair`: the rollback first, checked before anything is changed; then the
    // loop below indexes again up to the checkpoint as it was, and returns.
    std::optional<qint64> repairTarget;
    if (m_options.repairFrom)
        repairTarget = rollBackForRepair(*db, c.environmentId, chainId, lock, ranges, checkpoint,
                                         *m_options.repairFrom, undoAbove, say);

    bool behind = false; // the node's head is below the checkpoint (said once)
    // Options::untilCheckpoint: there, whichever process moved it.
    const auto reached = [&](const std::optional<coord::SharedCheckpoint>& cp) {
        return m_options.untilCheckpoint && cp && cp->blockNumber >= *m_options.untilCheckpoint;
    };
    while (!stopping()) {
        if (!lock.held()) {
            if (!lock.tryAcquire()) {
                if (reached(checkpoint.read()))
                    break; // another process follows, and took it there
                pause();
                continue;
            }
            result.led = true;
            say(QStringLiteral("following the head of %1 (this process holds its head lock)")
                    .arg(c.environmentId));
        } else if (!lock.stillHeld()) {
            say(QStringLiteral("lost the head lock of %1; another process follows")
                    .arg(c.environmentId));
            continue;
        }
        // Until the backfill is complete, the checkpoint is the backfill's to move.
        const std::optional<coord::SharedCheckpoint> cp = checkpoint.read();
        if (!cp || !ranges.counts().allDone()) {
            pause();
            continue;
        }
        if (reached(cp))
            break;
        try {
            const std::uint64_t head = eth.blockNumber();
            if (cp->blockNumber >= 0) {
                if (qint64(head) < cp->blockNumber) {
                    // A lagging node (a stale replica behind a load balancer) serves a head
                    // we hold: wait, as the SQLite indexer does. Only a head block with
                    // another hash than the stored one is a reorg (an anvil_rollback that
                    // no new block has covered yet).
                    const auto stored = finder.storedHash(head);
                    const auto onNode = eth.blockByNumber(head);
                    if (!stored || !onNode || onNode->hash == *stored) {
                        if (!behind)
                            say(QStringLiteral("node behind the checkpoint (head %1 < %2): "
                                               "waiting, nothing rolled back")
                                    .arg(head)
                                    .arg(cp->blockNumber));
                        behind = true;
                        pause();
                        continue;
                    }
                    rollBack(*cp, head, reorg_reason::kHashMismatch);
                    continue;
                }
                behind = false;
                const auto there = eth.blockByNumber(std::uint64_t(cp->blockNumber));
                if (there && there->hash != cp->blockHash) {
                    rollBack(*cp, std::nullopt, reorg_reason::kHashMismatch);
                    continue;
                }
            }
            const qint64 safe = repairTarget ? std::min(*repairTarget, qint64(head))
                                             : qint64(head) - qint64(c.confirmations);
            if (cp->blockNumber >= safe) {
                if (repairTarget)
                    break; // repaired: what was indexed is indexed again
                if (!recheckForAbsence(*cp))
                    pause();
                continue;
            }
            const auto from = std::uint64_t(cp->blockNumber + 1);
            const auto to = std::uint64_t(std::min<qint64>(
                cp->blockNumber + qint64(std::max<std::uint64_t>(1, c.batchSize)), safe));
            const wire::WireBatch batch = fetcher.fetch(from, to, head);
            if (batch.headers.isEmpty()) {
                pause();
                continue;
            }
            if (batch.headers.first().parentHash != cp->blockHash) {
                rollBack(*cp, std::nullopt, reorg_reason::kParentMismatch);
                continue;
            }
            PgBatchRows rows(c.environmentId, chainId);
            rows.append(batch, from, c.contracts, endpoint);
            const chain::BlockHeader& last = rows.headers().last();
            db->begin();
            PgEnvironmentRegistry(*db).requireLive(c.environmentId);
            // The planners' lock: a process planning ranges sees this range, or this one
            // sees its ranges and waits for the backfill (ON CONFLICT: nothing inserted).
            coord::BackfillClaims::lockPlanners(*db, env, chain);
            const qint64 recorded =
                db->run("follow_range",
                        "INSERT INTO backfill_ranges (environment_id, chain_id, from_block, "
                        "to_block, status, attempts, parent_hash, last_hash) VALUES ($1, $2, $3, "
                        "$4, 'done', 1, $5, $6) ON CONFLICT DO NOTHING",
                        {env, chain, QByteArray::number(qint64(from)),
                         QByteArray::number(qint64(last.number)),
                         PgConnection::byteaParam(cp->blockHash.toByteArray()),
                         PgConnection::byteaParam(last.hash.toByteArray())})
                    .affected();
            if (recorded != 1) {
                // A range is there already: planned by a backfill started meanwhile (the
                // next round waits for it), or a backfill's range from another branch that
                // its process died before reopening (StaleRange.h; the next process started
                // reopens it). Either way not a round to retry at once.
                db->rollback();
                pause();
                continue;
            }
            rows.copyInto(*db);
            // The data and the checkpoint in one transaction, the checkpoint by
            // compare-and-swap: a writer that moved it meanwhile makes this match nothing.
            if (!checkpoint.swap(*cp, qint64(last.number), last.hash)) {
                db->rollback();
                continue;
            }
            crashPoint("before-commit");
            db->commit();
            crashPoint("after-commit");
            absenceCheckDue = true;
            result.blocks += qint64(last.number - from + 1);
            result.logs += rows.logCount();
            say(QStringLiteral("blocks %1-%2 followed (%3 logs); checkpoint %2")
                    .arg(from)
                    .arg(last.number)
                    .arg(rows.logCount()));
        } catch (const store::StoreError&) {
            db->rollback();
            throw;
        } catch (const SharedRollbackRefused&) {
            db->rollback();
            throw;
        } catch (const DeepReorgError&) {
            db->rollback();
            throw;
        } catch (const EnvironmentArchivedError&) {
            db->rollback(); // its chain is gone: stop, as a deep reorg does
            throw;
        } catch (const wire::SuspectedTruncationError& e) {
            // A block the node cannot be proven to return whole (on its result cap, or its
            // logs not reproducing its header's bloom) is no trouble that passes: retried,
            // the follower would sit below it for good with only its own output saying so.
            // As the SQLite indexer records a completeness alert and stops, this records the
            // blocks as a failed range (which the report and the app show as data
            // incomplete, and the next `forkscope index` retries) and stops.
            db->rollback();
            coord::recordFailedRange(*db, c.environmentId, chainId, cp->blockNumber + 1,
                                     qint64(e.block), e.message());
            say(QStringLiteral("head of %1: blocks %2-%3 recorded as a failed range; the "
                               "checkpoint stays below them until forkscope index is started "
                               "again with the node fixed")
                    .arg(c.environmentId)
                    .arg(cp->blockNumber + 1)
                    .arg(e.block));
            throw;
        } catch (const std::exception& e) {
            // The node's trouble, or a reorg under a fetch: try again next round.
            db->rollback();
            if (stopping())
                break;
            say(QStringLiteral("head of %1: %2; trying again")
                    .arg(c.environmentId, QString::fromUtf8(e.what())));
            pause();
        }
    }
    return result;
}

} // namespace forkscope::indexer
