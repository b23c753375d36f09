#include "SharedHeadFollower.h"
#include "ForkFinder.h"
#include "IndexerErrors.h"
#include "PgBatchRows.h"
#include "PgEnvironmentRegistry.h"
#include "ReorgReason.h"
#include "SharedSession.h"
#include "concurrency/StoppablePause.h"
#include "coord/BackfillClaims.h"
#include "coord/PrefixCheckpoint.h"
#include "coord/SessionLock.h"
#include "rpc/EthClient.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"
#include "wire/LogFetcher.h"

#include <QDateTime>

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
    SharedSession session(c, m_options.owner);
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
        const QByteArray above = QByteArray::number(qint64(*fork.number));
        db->begin();
        PgEnvironmentRegistry(*db).requireLive(c.environmentId);
        const qint64 delivered =
            db->run("follow_delivered_above",
                    "SELECT count(*) FROM outbox_store WHERE environment_id = $1 AND chain_id = "
                    "$2 AND block_number > $3 AND delivered_at IS NOT NULL",
                    {env, chain, above})
                .int64(0, 0);
        if (delivered > 0)
            throw SharedRollbackRefused(
                QStringLiteral("a reorg of %1 at block %2 would remove %3 outbox rows already "
                               "delivered, and retractions on PostgreSQL are not built: nothing "
                               "was deleted; use more --confirmations, or SQLite")
                    .arg(c.environmentId)
                    .arg(*fork.number)
                    .arg(delivered));
        qint64 removed = 0;
        for (const char* sql : {"DELETE FROM outbox_store WHERE environment_id = $1 AND "
                                "chain_id = $2 AND block_number > $3",
                                "DELETE FROM log_store WHERE environment_id = $1 AND "
                                "chain_id = $2 AND block_number > $3",
                                "DELETE FROM block_store WHERE environment_id = $1 AND "
                                "chain_id = $2 AND block_number > $3",
                                "DELETE FROM backfill_ranges WHERE environment_id = $1 AND "
                                "chain_id = $2 AND from_block > $3"})
            removed += db->run(sql, sql, {env, chain, above}).affected();
        db->run("follow_cut_range",
                "UPDATE backfill_ranges SET to_block = $3, last_hash = $4 WHERE environment_id "
                "= $1 AND chain_id = $2 AND from_block <= $3 AND to_block > $3",
                {env, chain, above, PgConnection::byteaParam(fork.hash.toByteArray())});
        const qint64 depth = cp.blockNumber - qint64(*fork.number);
        db->run("follow_reorg_event",
                "INSERT INTO reorg_events (environment_id, chain_id, detected_at, "
                "old_block_number, fork_block_number, depth, reason, rows_removed, source_id, "
                "old_block_hash, fork_block_hash, delivered_outbox_rows) VALUES ($1, $2, $3, "
                "$4, $5, $6, $7, $8, $9, $10, $11, 0)",
                {env, chain, QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toUtf8(),
                 QByteArray::number(cp.blockNumber), above, QByteArray::number(depth),
                 reason.toUtf8(), QByteArray::number(removed), c.sourceId.toUtf8(),
                 cp.blockHash.toHex().toUtf8(), fork.hash.toHex().toUtf8()});
        if (!checkpoint.swap(cp, qint64(*fork.number), fork.hash)) {
            // another writer moved it meanwhile: look again
            db->rollback();
            return;
        }
        db->commit();
        ++result.reorgs;
        say(QStringLiteral("REORG (%1): checkpoint %2 -> fork %3, depth %4, %5 rows removed")
                .arg(reason)
                .arg(cp.blockNumber)
                .arg(*fork.number)
                .arg(depth)
                .arg(removed));
    };

    while (!stopping()) {
        if (!lock.held()) {
            if (!lock.tryAcquire()) {
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
        try {
            const std::uint64_t head = eth.blockNumber();
            if (cp->blockNumber >= 0) {
                if (qint64(head) < cp->blockNumber) {
                    rollBack(*cp, head, reorg_reason::kHashMismatch);
                    continue;
                }
                const auto there = eth.blockByNumber(std::uint64_t(cp->blockNumber));
                if (there && there->hash != cp->blockHash) {
                    rollBack(*cp, std::nullopt, reorg_reason::kHashMismatch);
                    continue;
                }
            }
            const qint64 safe = qint64(head) - qint64(c.confirmations);
            if (cp->blockNumber >= safe) {
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
            db->run("follow_plan_lock",
                    "SELECT pg_advisory_xact_lock(hashtext($1::text || '/' || $2::text))",
                    {env, chain});
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
                db->rollback();
                continue;
            }
            rows.copyInto(*db);
            // The data and the checkpoint in one transaction, the checkpoint by
            // compare-and-swap: a writer that moved it meanwhile makes this match nothing.
            if (!checkpoint.swap(*cp, qint64(last.number), last.hash)) {
                db->rollback();
                continue;
            }
            db->commit();
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
