// PgIndexStore::rollBack: everything above a fork point undone in one transaction, in the
// order docs/design.md gives ("Reorgs: the fork point and the one-transaction rollback"), as
// SQLite's ReorgRollback does it, with what several writers add: the ranges above the fork
// go too (a writer still fetching one finds at commit that it is no longer its own).
#include "PgBalances.h"
#include "PgConnection.h"
#include "PgContract.h"
#include "PgEnvironmentRegistry.h"
#include "PgForkTree.h"
#include "PgIndexStore.h"
#include "PgPendingOutbox.h"
#include "coord/BackfillClaims.h"
#include "indexer/AbsenceAlertPlan.h"
#include "indexer/CrashPoints.h"
#include "indexer/IndexerErrors.h"
#include "indexer/ReorgReason.h"
#include "store/Database.h"

#include <limits>

namespace forkscope::store::pg {

namespace {

// An outbox row (aliased `o`) that retracts one sent before: a rollback never drops it.
const QByteArray kPendingRetraction =
    "(o.delivered_at IS NULL AND o.event_key IS NOT NULL AND o.event_key LIKE 'retract:%')";
// An outbox row (aliased `o`) that a rollback leaves as it is: one delivered that an earlier
// reorg already retracted (it lost its log), a delivered retraction, a pending one. Such a
// row is no part of this rollback's diff.
const QByteArray kKeptOutboxRow =
    "(o.log_index IS NULL AND (o.delivered_at IS NOT NULL OR (o.event_key IS NOT NULL AND "
    "o.event_key LIKE 'retract:%')))";

// The stored rows that name a Transfer delivery took up without an answer: sent, perhaps
// received (a timeout, a crash after the send, a stop past the grace), or about to be.
// Refused rows were not taken. $1 environment, $2 chain, $3 the fork block.
const QByteArray kUnconfirmedRows =
    "FROM outbox_store o JOIN log_store l ON l.environment_id = o.environment_id AND "
    "l.chain_id = o.chain_id AND l.block_number = o.block_number AND l.log_index = o.log_index "
    "WHERE o.environment_id = $1 AND o.chain_id = $2 AND o.block_number > $3::bigint AND "
    "o.delivered_at IS NULL AND o.failed_at IS NULL AND l.transfer_value IS NOT NULL";

// Records in reorg_diff_store what the rollback is about to remove, before anything above
// the fork is deleted or rewritten: each removed Transfer the checkpoint covered, and each
// outbox row above the fork (dropped, or delivered and so retracted). $1 environment, $2
// chain, $3 the fork block (rows strictly above it go), $4 the reorg id, $5 the checkpoint.
void recordDiff(PgConnection& db, const QList<QByteArray>& scope)
{
    db.run("rollback_diff_transfers",
           "INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, "
           "block_number, log_index, tx_hash, contract, from_addr, to_addr, value) SELECT "
           "$4::bigint, environment_id, chain_id, 'transfer_removed', block_number, log_index, "
           "tx_hash, address, substr(topic1, 13), substr(topic2, 13), transfer_value::text FROM "
           "log_store WHERE environment_id = $1 AND chain_id = $2 AND block_number > $3::bigint "
           "AND block_number <= $5::bigint AND transfer_value IS NOT NULL ORDER BY block_number, "
           "log_index",
           scope);
    // Before the delivered rows are rewritten with their own key (log_index NULL): a row
    // that names its log keeps the log's block hash, from which the view renders its key.
    // A Transfer with no stored row has a rendered one, pending: it is dropped too.
    static const QByteArray diff =
        "INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, block_number, "
        "log_index, block_hash, event_key, value) SELECT $4::bigint, $1, $2::bigint, kind, "
        "block_number, log_index, block_hash, event_key, payload FROM (SELECT CASE WHEN "
        "o.delivered_at IS NOT NULL THEN 'outbox_delivered_reorged' WHEN o.failed_at IS NULL "
        "AND l.transfer_value IS NOT NULL THEN 'outbox_unconfirmed_retracted' ELSE "
        "'outbox_dropped' END AS kind, o.block_number, o.log_index, l.block_hash, o.event_key, "
        "o.payload FROM outbox_store o LEFT JOIN log_store l ON l.environment_id = "
        "o.environment_id AND l.chain_id = o.chain_id AND l.block_number = o.block_number AND "
        "l.log_index = o.log_index WHERE o.environment_id = $1 AND o.chain_id = $2 AND "
        "o.block_number > $3::bigint AND o.block_number <= $5::bigint AND NOT " +
        kKeptOutboxRow +
        " UNION ALL SELECT 'outbox_dropped', "
        "l.block_number, l.log_index, l.block_hash, NULL, NULL FROM log_store l WHERE "
        "l.environment_id = $1 AND l.chain_id = $2 AND l.block_number > $3::bigint AND "
        "l.block_number <= $5::bigint AND l.transfer_value IS NOT NULL AND " +
        pgOutboxNotStoredSql() + ") u ORDER BY block_number, log_index";
    db.run("rollback_diff_outbox", diff.constData(), scope);
}

} // namespace

indexer::RollbackResult PgIndexStore::rollBack(const indexer::Checkpoint& cp,
                                               const indexer::ForkPoint& fork,
                                               const QString& reason)
{
    requireOpen();
    PgTransaction tx(*m_db);
    const indexer::RollbackResult r = undoAbove(cp, fork, reason);
    tx.commit();
    return r;
}

indexer::RepairOutcome PgIndexStore::repair(const indexer::Checkpoint& cp,
                                            const std::optional<indexer::ForkPoint>& fork,
                                            std::uint64_t from)
{
    requireOpen();
    PgTransaction tx(*m_db);
    indexer::RepairOutcome out;
    QString resolution;
    if (fork) {
        out.rollback = undoAbove(cp, *fork, indexer::reorg_reason::kRepair);
        // A rollback takes back what the removed Transfers added, exact only while each
        // balance was the sum of its Transfers: a repair follows lost or edited rows, so the
        // balances are computed again from what remains.
        out.balancesRebuilt =
            rebuildBalances(*m_db, m_env, m_chain, out.rollback.reorgId, out.rollback.forkBlock);
        resolution = QStringLiteral("repaired from block %1 (reorg id %2): rolled back and "
                                    "fetched again")
                         .arg(from)
                         .arg(out.rollback.reorgId);
    } else {
        out.rollback.oldCheckpoint = cp.number;
        out.rollback.forkBlock = qint64(cp.number);
        resolution = QStringLiteral("fetched again from block %1 (nothing stored there to roll "
                                    "back)")
                         .arg(from);
    }
    out.alertsResolved = out.rollback.alertsSettled +
                         int(m_db->run("repair_resolve",
                                       "UPDATE completeness_alerts SET resolved_at = $4, "
                                       "resolution = $5 WHERE environment_id = $1 AND chain_id = "
                                       "$2 AND resolved_at IS NULL AND to_block >= $3",
                                       {m_env, m_chain, QByteArray::number(qulonglong(from)),
                                        nowUtc().toUtf8(), resolution.toUtf8()})
                                 .affected());
    tx.commit();
    return out;
}

indexer::RollbackResult PgIndexStore::undoAbove(const indexer::Checkpoint& cp,
                                                const indexer::ForkPoint& fork,
                                                const QString& reason)
{
    indexer::RollbackResult r;
    r.oldCheckpoint = cp.number;
    // Everything strictly above `above` goes.
    const qint64 above = fork.number ? qint64(*fork.number) : qint64(cp.startBlock) - 1;
    r.forkBlock = above;
    r.depth = std::uint64_t(qint64(cp.number) - above);
    if (above >= qint64(cp.number))
        throw indexer::IndexerError(QStringLiteral("refusing to record a rollback of depth 0 at "
                                                   "block %1 (%2): nothing above the fork point")
                                        .arg(cp.number)
                                        .arg(reason));
    const QByteArray aboveText = QByteArray::number(above);
    const QByteArray cpText = QByteArray::number(qint64(cp.number));
    // An archived environment's chain was reset on purpose: nothing of it is rolled back.
    PgEnvironmentRegistry(*m_db).requireLive(m_environmentId);
    const std::optional<Row> row = readRow(true);
    if (!row || row->number != qint64(cp.number) || row->hash != cp.hash)
        throw indexer::CheckpointMovedError(
            QStringLiteral("the checkpoint of %1/%2 moved away from %3 before the rollback; "
                           "re-reading it")
                .arg(m_environmentId, m_sourceId)
                .arg(cp.number));
    // Taken back from balance_store below: every removed Transfer must be in it.
    foldBalances(*row);
    // The ranges above the fork go with the rows: no range may be planned, cut or reopened
    // meanwhile (a part added under this rollback's feet would outlive it as a hole nobody
    // plans again). Taken before any stored row, as the planners that remove rows take it.
    coord::BackfillClaims::lockPlanners(*m_db, m_env, m_chain);
    // Whatever is indexed again above the fork is rendered for delivery from there; taken
    // before any outbox row is read, so a delivery round storing rows above the fork ends
    // first and its rows are rolled back here with the rest (PgPendingOutbox.h).
    lowerOutboxCursor(*m_db, m_env, m_chain, above + 1);
    // Back to just below the first block when nothing stays: the first block's parent.
    chain::Hash32 forkHash = fork.hash;
    if (!fork.number) {
        const PgResult first = m_db->run("rollback_first_parent",
                                         "SELECT parent_hash FROM block_store WHERE "
                                         "environment_id = $1 AND chain_id = $2 AND block_number "
                                         "= $3",
                                         {m_env, m_chain, QByteArray::number(row->startBlock)});
        if (first.rows() == 0)
            throw indexer::IndexerError(
                QStringLiteral("block %1, the first of %2, is not stored: nothing to roll back "
                               "to")
                    .arg(row->startBlock)
                    .arg(m_environmentId));
        forkHash = chain::Hash32::fromBytes(first.bytes(0, 0, 32),
                                            QStringLiteral("block_store.parent_hash"));
    }
    const QList<QByteArray> scope{m_env, m_chain, aboveText};
    r.transfersRemoved =
        m_db->run("rollback_transfers",
                  "SELECT count(*) FROM log_store WHERE environment_id = $1 AND chain_id = $2 "
                  "AND block_number > $3 AND block_number <= $4 AND transfer_value IS NOT NULL",
                  scope + QList<QByteArray>{cpText})
            .int64(0, 0);
    // Rows an earlier reorg already retracted have lost their log: not counted again.
    r.deliveredAffected =
        m_db->run("rollback_delivered",
                  "SELECT count(*) FROM outbox_store WHERE environment_id = $1 AND chain_id = $2 "
                  "AND block_number > $3 AND delivered_at IS NOT NULL AND log_index IS NOT "
                  "NULL",
                  scope)
            .int64(0, 0);
    static const QByteArray unconfirmed = "SELECT count(*) " + kUnconfirmedRows;
    r.unconfirmedRetracted =
        m_db->run("rollback_unconfirmed", unconfirmed.constData(), scope).int64(0, 0);
    r.reorgId = m_db->run("rollback_event",
                          "INSERT INTO reorg_events (environment_id, chain_id, detected_at, "
                          "old_block_number, fork_block_number, depth, reason, rows_removed, "
                          "source_id, old_block_hash, fork_block_hash, delivered_outbox_rows) "
                          "VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, $11) RETURNING id",
                          {m_env, m_chain, nowUtc().toUtf8(), cpText, aboveText,
                           QByteArray::number(qulonglong(r.depth)), reason.toUtf8(), m_source,
                           cp.hash.toHex().toUtf8(),
                           fork.number ? fork.hash.toHex().toUtf8() : QByteArray(),
                           QByteArray::number(r.deliveredAffected)})
                    .int64(0, 0);
    const QByteArray reorgText = QByteArray::number(r.reorgId);
    // The branch this removes stays visible in the fork tree, within the retention.
    keepOrphanedBlocks(*m_db, m_env, m_chain, r.reorgId, above, qint64(cp.number),
                       m_orphanRetention);
    recordDiff(*m_db, scope + QList<QByteArray>{reorgText, cpText});
    // A Transfer's rendered row goes with its log below; it counts as dropped like a stored
    // one (every height above the fork, as the stored rows deleted below). Counted before
    // delivered rows let go of their logs.
    static const QByteArray rendered =
        "SELECT count(*) FROM log_store l WHERE l.environment_id = $1 AND l.chain_id = $2 AND "
        "l.block_number > $3 AND l.transfer_value IS NOT NULL AND " +
        pgOutboxNotStoredSql();
    const qint64 renderedDropped =
        m_db->run("rollback_outbox_rendered", rendered.constData(), scope).int64(0, 0);
    if (r.deliveredAffected + r.unconfirmedRetracted > 0) {
        // A consumer may have acted on those: a compensating "retracted" message for each,
        // enqueued at the fork height so that it goes out as soon as the fork is safe.
        // Rendered from the logs, so before they go.
        static const QByteArray retract =
            "INSERT INTO outbox_store (environment_id, chain_id, block_number, event_key, "
            "payload) SELECT $1, $2::bigint, greatest($3::bigint, 0), 'retract:' || k, "
            "'{\"type\":\"retracted\",\"eventKey\":\"' || k || '\",\"reorgId\":' || "
            "$4::bigint || ',\"forkBlock\":' || $3::bigint || ',\"original\":' || p || '}' "
            "FROM (SELECT event_key AS k, payload AS p FROM outbox WHERE environment_id = $1 AND "
            "chain_id = $2 AND block_number > $3::bigint AND delivered_at IS NOT NULL AND "
            "event_key NOT LIKE 'retract:%' UNION ALL SELECT " +
            pgOutboxEventKeySql() + ", " + pgOutboxPayloadSql() + " " + kUnconfirmedRows +
            ") u WHERE k IS NOT NULL ON CONFLICT DO NOTHING";
        m_db->run("rollback_retract", retract.constData(), scope + QList<QByteArray>{reorgText});
    }
    if (r.deliveredAffected > 0) {
        // The delivered rows outlive their logs, keeping as text the key and payload the
        // consumer received.
        static const QByteArray keep =
            "UPDATE outbox_store o SET event_key = " + pgOutboxEventKeySql() +
            ", payload = " + pgOutboxPayloadSql() +
            ", log_index = NULL FROM log_store l WHERE o.environment_id = $1 AND o.chain_id = $2 "
            "AND o.block_number > $3 AND o.delivered_at IS NOT NULL AND o.log_index IS NOT NULL "
            "AND l.environment_id = o.environment_id AND l.chain_id = o.chain_id AND "
            "l.block_number = o.block_number AND l.log_index = o.log_index";
        m_db->run("rollback_keep_delivered", keep.constData(), scope);
    }
    // What the removed Transfers added to the balances, taken back while they are there.
    r.balancesChanged = revertBalances(*m_db, m_env, m_chain, r.reorgId, above, row->number);
    // Everything above the fork, the rows of ranges above the checkpoint included (another
    // writer's, from a plan the reorg made wrong), and the ranges themselves: a writer that
    // still holds one finds at its commit that it is gone. A range cut by the fork keeps what
    // is below it, done or given back.
    // Those taken up without an answer were retracted above, not dropped. A pending
    // retraction still has to reach the consumer: it moves down to the fork.
    static const QByteArray dropUndelivered =
        "DELETE FROM outbox_store o WHERE o.environment_id = $1 AND o.chain_id = $2 AND "
        "o.block_number > $3 AND o.delivered_at IS NULL AND NOT " +
        kPendingRetraction;
    r.outboxDropped = renderedDropped - r.unconfirmedRetracted +
                      m_db->run("rollback_outbox", dropUndelivered.constData(), scope).affected();
    static const QByteArray moveRetractions =
        "UPDATE outbox_store o SET block_number = greatest($3::bigint, 0) WHERE "
        "o.environment_id = $1 AND o.chain_id = $2 AND o.block_number > $3::bigint AND " +
        kPendingRetraction;
    m_db->run("rollback_move_retractions", moveRetractions.constData(), scope);
    // A child whose creation event goes goes with it (its rows are all above its creation,
    // so they go too), and the diff names it.
    m_db->run("rollback_diff_children",
              "INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, "
              "block_number, log_index, tx_hash, contract, from_addr) SELECT $4::bigint, "
              "environment_id, chain_id, 'child_removed', block_number, log_index, tx_hash, "
              "child, factory FROM child_store WHERE environment_id = $1 AND chain_id = $2 AND "
              "block_number > $3::bigint AND block_number <= $5::bigint ORDER BY block_number, "
              "log_index",
              scope + QList<QByteArray>{reorgText, cpText});
    r.childrenRemoved = m_db->run("rollback_children",
                                  "DELETE FROM child_store WHERE environment_id = $1 AND chain_id "
                                  "= $2 AND block_number > $3",
                                  scope)
                            .affected();
    const qint64 logsRemoved = m_db->run("rollback_logs",
                                         "DELETE FROM log_store WHERE environment_id = $1 AND "
                                         "chain_id = $2 AND block_number > $3",
                                         scope)
                                   .affected();
    const qint64 blocksRemoved = m_db->run("rollback_blocks",
                                           "DELETE FROM block_store WHERE environment_id = $1 AND "
                                           "chain_id = $2 AND block_number > $3",
                                           scope)
                                     .affected();
    m_db->run("rollback_ranges",
              "DELETE FROM range_store WHERE environment_id = $1 AND chain_id = $2 AND "
              "from_block > $3",
              scope);
    m_db->run("rollback_cut_range",
              "UPDATE range_store SET to_block = $3, last_hash = CASE WHEN status = 'done' THEN "
              "$4::bytea "
              "END, status = CASE WHEN status = 'done' THEN 'done' ELSE 'pending' END, owner = "
              "NULL, lease_until = NULL, updated_at = clock_timestamp() WHERE environment_id = $1 "
              "AND chain_id = $2 AND from_block <= $3 AND to_block > $3",
              scope + QList<QByteArray>{PgConnection::byteaParam(forkHash.toByteArray())});
    r.rowsRemoved =
        r.transfersRemoved + logsRemoved + blocksRemoved + r.outboxDropped + r.childrenRemoved;
    m_db->run("rollback_removed", "UPDATE reorg_events SET rows_removed = $2 WHERE id = $1",
              {reorgText, QByteArray::number(r.rowsRemoved)});
    // An absence suspicion about blocks this removes is settled: they are indexed again.
    r.alertsSettled = int(
        m_db->run("rollback_absence",
                  "UPDATE completeness_alerts SET resolved_at = $4, resolution = $5 WHERE "
                  "environment_id = $1 AND chain_id = $2 AND resolved_at IS NULL AND kind = "
                  "'absence' AND from_block > $3",
                  scope +
                      QList<QByteArray>{nowUtc().toUtf8(),
                                        indexer::absenceRolledBackResolution(r.reorgId).toUtf8()})
            .affected());
    // An added contract's backfill above the fork goes back with the head: its rows above
    // the fork were deleted above, and its ranges there are given back.
    m_db->run("rollback_sources",
              "UPDATE source_store SET block_number = CASE WHEN $3::bigint >= start_block THEN "
              "$3::bigint END, block_hash = CASE WHEN $3::bigint >= start_block THEN $4::bytea "
              "END WHERE environment_id = $1 AND chain_id = $2 AND state = 'pending' AND "
              "block_number > $3::bigint",
              scope + QList<QByteArray>{PgConnection::byteaParam(forkHash.toByteArray())});
    m_db->run("rollback_source_ranges",
              "DELETE FROM source_range_store WHERE environment_id = $1 AND chain_id = $2 AND "
              "from_block > $3",
              scope);
    m_db->run("rollback_cut_source_range",
              "UPDATE source_range_store SET to_block = $3, updated_at = $4 WHERE environment_id "
              "= $1 AND chain_id = $2 AND to_block > $3",
              scope + QList<QByteArray>{nowUtc().toUtf8()});
    indexer::crashPoint("mid-rollback");
    m_db->run(
        "rollback_cp",
        "UPDATE checkpoint_store SET block_number = $4, block_hash = $5, version = version + "
        "1, updated_at = clock_timestamp() WHERE environment_id = $1 AND chain_id = $2 AND "
        "source_id = $3",
        {m_env, m_chain, m_source, aboveText, PgConnection::byteaParam(forkHash.toByteArray())});
    return r;
}

} // namespace forkscope::store::pg
