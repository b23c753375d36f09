#include "SharedHeadFollower.h"
#include "AbsenceAlertPlan.h"
#include "AbsenceCheck.h"
#include "CrashPoints.h"
#include "ForkFinder.h"
#include "IndexerErrors.h"
#include "NodeWait.h"
#include "PgBatchRows.h"
#include "PgEnvironmentRegistry.h"
#include "ReorgReason.h"
#include "SharedRollback.h"
#include "SharedSession.h"
#include "concurrency/StoppablePause.h"
#include "coord/BackfillClaims.h"
#include "coord/FailedRanges.h"
#include "coord/PrefixCheckpoint.h"
#include "coord/SessionLock.h"
#include "coord/SharedAlerts.h"
#include "rpc/EthClient.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"
#include "wire/LogFetcher.h"
#include "wire/SuspectedTruncationError.h"

#include <QElapsedTimer>
#include <QSet>

namespace forkscope::indexer {

using store::pg::PgConnection;

namespace {

// A reorg this build cannot undo on PostgreSQL: stop, loudly, before deleting anything.
class SharedRollbackRefused : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

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
    SharedRollback rollback(*db, checkpoint, c.environmentId, chainId, c.sourceId);
    const auto undoAbove = [&](const coord::SharedCheckpoint& cp, const ForkPoint& fork,
                               const QString& reason) {
        const std::optional<UndoneReorg> undone = rollback.undoAbove(cp, fork, reason);
        if (!undone)
            return; // another writer moved the checkpoint: the next round looks again
        ++result.reorgs;
        say(undone->describe());
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

    // The absence check at the head (docs/design.md, "Absence is loud and corroborated"),
    // as the SQLite indexer does it (AbsenceCheck.h): stored logs of the last
    // --absence-window blocks the node no longer returns are said and counted; only a
    // header that contradicts a stored hash rolls back. Looked at again once new blocks are
    // stored, and every 10 s at rest.
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
        const AbsenceFinding finding =
            checkForAbsence(eth, *window, c.contracts, c.logCap, std::move(held),
                            [&](std::uint64_t n) { return finder.storedHash(n); });
        if (!finding.blocks.isEmpty()) {
            ++result.absenceSuspicions;
            say(describeAbsence(finding));
            if (finding.contradicted) {
                rollBack(cp, std::nullopt, reorg_reason::kAbsence); // settles their alerts
                return true;
            }
        }
        // Kept as an alert, as the SQLite indexer keeps it: the app watching this index and
        // the report say "data incomplete" until it is settled.
        const AbsenceAlertPlan plan =
            planAbsenceAlerts(*window, finding.blocks,
                              coord::openRecordedAlerts(*db, c.environmentId, quint64(chainId)));
        coord::resolveAlerts(*db, c.environmentId, quint64(chainId), plan.resolve,
                             absenceLogsReturnedResolution());
        if (!plan.record.isEmpty())
            coord::recordAlert(*db, c.environmentId, quint64(chainId), endpoint,
                               plan.record.first(), plan.record.last(),
                               absenceAlertText(plan.record), QStringLiteral("absence"));
        return false;
    };

    // `forkscope repair`: the rollback first, checked before anything is changed; then the
    // loop below indexes again up to the checkpoint as it was, and returns.
    std::optional<qint64> repairTarget;
    if (m_options.repairFrom) {
        repairTarget = rollback.forRepair(lock, ranges, *m_options.repairFrom, say);
        ++result.reorgs;
    }

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
