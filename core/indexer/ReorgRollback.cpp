#include "ReorgRollback.h"
#include "AbsenceAlertPlan.h"
#include "BalanceBook.h"
#include "BalanceRevertPlan.h"
#include "CheckpointStore.h"
#include "CompletenessAlerts.h"
#include "CrashPoints.h"
#include "IndexerErrors.h"
#include "SourceBook.h"
#include "store/BinaryContract.h"
#include "store/Database.h"
#include "store/MultiRowInsert.h"
#include "store/SqliteForkTree.h"
#include "store/SqliteStatement.h"
#include "text/Count.h"

#include <QDateTime>
#include <QSqlQuery>
#include <future>
#include <optional>
#include <vector>

namespace forkscope::indexer {

namespace {
// An outbox row (aliased `o`) that retracts one sent before: a rollback never drops it.
const QString kPendingRetraction = QStringLiteral(
    "(o.delivered_at IS NULL AND o.event_key IS NOT NULL AND o.event_key LIKE 'retract:%')");
// An outbox row (aliased `o`) that a rollback leaves as it is: one delivered that an earlier
// reorg already retracted (it lost its log), a delivered retraction, a pending one. Such a
// row is no part of this rollback's diff.
const QString kKeptOutboxRow = QStringLiteral(
    "(o.log_index IS NULL AND (o.delivered_at IS NOT NULL OR (o.event_key IS NOT NULL AND "
    "o.event_key LIKE 'retract:%')))");
} // namespace

ReorgRollback::ReorgRollback(store::Database& db, QString environmentId, std::uint64_t chainId,
                             QString sourceId, CheckpointStore& checkpoints, BalanceBook& balances)
    : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId), m_source(std::move(sourceId)),
      m_checkpoints(checkpoints), m_balances(balances)
{
}

RollbackResult ReorgRollback::rollback(const Checkpoint& cp, const ForkPoint& fork,
                                       const QString& reason)
{
    RollbackResult r;
    r.oldCheckpoint = cp.number;
    // Everything strictly above `above` goes.
    const qint64 above = fork.number ? qint64(*fork.number) : qint64(cp.startBlock) - 1;
    r.forkBlock = above;
    r.depth = std::uint64_t(qint64(cp.number) - above);
    // A "reorg" that removes nothing is a caller's mistake (a node that answered two
    // branches, taken for a reorg): it would put a false event in reorg_events.
    if (above >= qint64(cp.number))
        throw IndexerError(QStringLiteral("refusing to record a rollback of depth 0 at block %1 "
                                          "(%2): nothing above the fork point")
                               .arg(cp.number)
                               .arg(reason));
    const qint64 chainId = qint64(m_chainId);
    const QVariantList scope{m_env, chainId, above};

    // Inside a caller's write transaction it joins it (a repair rebuilds balances before
    // the one commit); otherwise it commits on its own.
    std::optional<store::WriteTransaction> tx;
    if (!m_db.inTransaction())
        tx.emplace(m_db);

    QSqlQuery ins = m_db.run(
        QStringLiteral("INSERT INTO reorg_events (environment_id, chain_id, detected_at, "
                       "old_block_number, fork_block_number, depth, reason, rows_removed, "
                       "source_id, old_block_hash, fork_block_hash) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)"),
        {m_env, chainId, store::nowUtc(), qint64(cp.number), above, qint64(r.depth), reason,
         m_source, cp.hash.toHex(),
         fork.number ? QVariant(fork.hash.toHex()) : QVariant(QMetaType(QMetaType::QString))});
    r.reorgId = ins.lastInsertId().toLongLong();
    // The branch this removes stays visible in the fork tree, within the retention.
    store::keepOrphanedBlocks(m_db, m_env, chainId, r.reorgId, above, qint64(cp.number),
                              m_orphanRetention);

    // 0. How many Transfers go: that decides where their balances are planned.
    r.transfersRemoved = countTransfersAbove(above);
    // What they added to each holder is read before their logs go (step 2): the balances are
    // reverted by exactly that (step 3). Those reads make a plan (BalanceRevertPlan.h); for a
    // deep rollback they run on a second connection, on the other core, while this one copies
    // the diff and drops the outbox rows. Its snapshot is the state this transaction found:
    // this connection holds the write lock, so nobody commits in between, and what it changes
    // before step 2 (reorg_events, the diff, the outbox) is nothing the plan reads. Inside a
    // caller's transaction the plan must see the caller's writes: it is made here.
    std::future<BalanceRevertPlan> planAside;
    if (m_revertBalances && tx && r.transfersRemoved >= m_planAsideFrom && isWalFile())
        planAside = std::async(std::launch::async,
                               [path = m_db.path(), env = m_env, chainId = m_chainId, above] {
                                   store::Database::Options o;
                                   o.readOnly = true;
                                   const auto reader = store::Database::open(path, o);
                                   store::ReadSnapshot snapshot(*reader);
                                   return planRollbackBalances(*reader, env, chainId, above);
                               });

    // The diff is copied as BLOBs straight from the stored rows (store/ReorgDiffContract.h):
    // rendering it as hex through the views was half of a deep rollback. Each removed
    // Transfer's row also records what becomes of its outbox row in step 1 (dropped if never
    // sent, retracted if it may have been) and keeps its log's block hash, from which the diff view
    // renders that outbox row's event key: one diff row per event, not two (schema 7). Usually no
    // outbox row above the fork is stored: each removed Transfer's row is rendered from its log,
    // pending, and goes with it (store/PendingOutboxContract.h). Then each is recorded as dropped
    // without looking anything up, and there is nothing to delete. One probe of the position index
    // proves it; a stored row above (delivered, refused, tried, a retraction) takes the join, and
    // step 1 copies the stored rows that name no Transfer.
    const bool storedRowsAbove = anyStoredOutboxRowAbove(above);
    const QString transferColumns =
        QStringLiteral("INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, "
                       "block_number, log_index, block_hash, tx_hash, contract, from_addr, "
                       "to_addr, value, outbox_kind) SELECT ?, l.environment_id, l.chain_id, "
                       "'transfer_removed', l.block_number, l.log_index, l.block_hash, l.tx_hash, "
                       "l.address, substr(l.topic1, 13), substr(l.topic2, 13), l.transfer_value, ");
    if (!storedRowsAbove)
        m_db.run(transferColumns +
                     QStringLiteral("'outbox_dropped' FROM log_store l WHERE l.environment_id = ? "
                                    "AND l.chain_id = ? AND l.block_number > ? AND "
                                    "l.transfer_value IS NOT NULL"),
                 {r.reorgId, m_env, chainId, above});
    else
        m_db.run(transferColumns +
                     QStringLiteral("CASE WHEN o.delivered_at IS NOT NULL THEN "
                                    "'outbox_delivered_reorged' WHEN o.id IS NOT NULL AND "
                                    "o.failed_at IS NULL THEN 'outbox_unconfirmed_retracted' "
                                    "ELSE 'outbox_dropped' END FROM log_store l LEFT JOIN "
                                    "outbox_store o ON o.environment_id = l.environment_id AND "
                                    "o.chain_id = l.chain_id AND o.block_number = l.block_number "
                                    "AND o.log_index = l.log_index WHERE l.environment_id = ? AND "
                                    "l.chain_id = ? AND l.block_number > ? AND l.transfer_value "
                                    "IS NOT NULL"),
                 {r.reorgId, m_env, chainId, above});

    // 1. Side effects not yet sent go with the data; sent ones stay and are flagged. This runs
    //    while the logs are still there.
    const qint64 storedTransferRows = storedRowsAbove ? settleStoredOutboxRows(above, r) : 0;
    // The rendered rows go with their logs in step 2; they count as dropped like stored ones.
    r.outboxDropped += r.transfersRemoved - storedTransferRows;

    const BalanceRevertPlan plan =
        m_revertBalances ? takeBalancePlan(planAside, above, r) : BalanceRevertPlan{};

    // 2. Facts and blocks, by height; a child whose creation event goes goes with it (its
    //    rows are all above its creation, so they go too), and the diff names it.
    m_db.run(QStringLiteral("INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, "
                            "kind, block_number, log_index, tx_hash, contract, from_addr) SELECT "
                            "?, environment_id, chain_id, 'child_removed', block_number, "
                            "log_index, tx_hash, child, factory FROM child_store WHERE "
                            "environment_id = ? AND chain_id = ? AND block_number > ? ORDER BY "
                            "block_number, log_index"),
             {r.reorgId, m_env, chainId, above});
    r.childrenRemoved =
        m_db.run(QStringLiteral("DELETE FROM child_store WHERE environment_id = ? AND chain_id = "
                                "? AND block_number > ?"),
                 scope)
            .numRowsAffected();
    const qint64 logsRemoved =
        m_db.run(QStringLiteral("DELETE FROM log_store WHERE environment_id = ? AND chain_id = ? "
                                "AND block_number > ?"),
                 scope)
            .numRowsAffected();
    const qint64 blocksRemoved =
        m_db.run(QStringLiteral("DELETE FROM block_store WHERE environment_id = ? AND chain_id = ? "
                                "AND block_number > ?"),
                 scope)
            .numRowsAffected();

    crashPoint("mid-rollback");

    // 3. Derived table: take back what the removed facts added.
    if (m_revertBalances) {
        m_balances.applyRevert(plan);
        recordBalanceChanges(m_db, r.reorgId, m_env, m_chainId, plan.changes);
        r.balancesChanged = plan.changes.size();
    }

    // 4. The checkpoint goes back to the fork, conditional on still being where we found it.
    if (fork.number)
        m_checkpoints.advance(cp, *fork.number, fork.hash);
    else
        m_checkpoints.remove(cp);
    // An added contract's backfill above the fork goes back with the head, in this same
    // transaction: its rows above the fork were among the rows deleted above.
    SourceBook(m_db, m_env, m_chainId).rollBackAbove(above, fork.hash);

    // An absence suspicion about blocks this removes is settled: they are indexed again.
    r.alertsSettled = CompletenessAlerts(m_db, m_env, m_chainId)
                          .resolveAbsenceAbove(above, absenceRolledBackResolution(r.reorgId));

    r.rowsRemoved =
        r.transfersRemoved + logsRemoved + blocksRemoved + r.outboxDropped + r.childrenRemoved;
    m_db.run(QStringLiteral("UPDATE reorg_events SET rows_removed = ?, delivered_outbox_rows = ? "
                            "WHERE id = ?"),
             {r.rowsRemoved, r.deliveredAffected, r.reorgId});
    if (tx)
        tx->commit();
    return r;
}

BalanceRevertPlan ReorgRollback::takeBalancePlan(std::future<BalanceRevertPlan>& aside,
                                                 qint64 above, RollbackResult& r)
{
    if (aside.valid()) {
        try {
            BalanceRevertPlan plan = aside.get();
            // Both connections read one state; if they ever count differently, that premise
            // broke, and nothing is written from a plan of another state.
            if (plan.transfersRead == r.transfersRemoved) {
                r.balancesPlannedAside = true;
                return plan;
            }
            r.planAsideFallback = QStringLiteral("the second connection read %1 Transfers above "
                                                 "block %2, the rollback's %3")
                                      .arg(plan.transfersRead)
                                      .arg(above)
                                      .arg(r.transfersRemoved);
        } catch (const std::exception& e) {
            r.planAsideFallback = QString::fromUtf8(e.what());
        }
    }
    // On this connection: until step 2 the logs and balances are as the rollback found them.
    return planRollbackBalances(m_db, m_env, m_chainId, above);
}

void ReorgRollback::bindScope(store::SqliteStatement& q, qint64 above) const
{
    q.bind(1, m_env.toUtf8());
    q.bind(2, std::int64_t(m_chainId));
    q.bind(3, std::int64_t(above));
}

qint64 ReorgRollback::settleStoredOutboxRows(qint64 above, RollbackResult& r)
{
    const qint64 chainId = qint64(m_chainId);
    const QVariantList scope{m_env, chainId, above};
    const QString sameLog = QStringLiteral(
        "l.environment_id = o.environment_id AND l.chain_id = o.chain_id AND l.block_number = "
        "o.block_number AND l.log_index = o.log_index");
    // The stored rows that name a removed Transfer, and how many of them delivery took up
    // without an answer: sent, perhaps received (a timeout, a crash after the send, a stop
    // past the grace), or about to be. Refused rows were not taken.
    QSqlQuery counts = m_db.run(
        QStringLiteral("SELECT count(*), coalesce(sum(o.delivered_at IS NULL AND o.failed_at IS "
                       "NULL), 0) FROM outbox_store o JOIN log_store l ON ") +
            sameLog +
            QStringLiteral(" WHERE o.environment_id = ? AND o.chain_id = ? AND o.block_number > "
                           "? AND l.transfer_value IS NOT NULL"),
        scope);
    counts.next();
    const qint64 storedTransferRows = counts.value(0).toLongLong();
    r.unconfirmedRetracted = counts.value(1).toLongLong();
    // The stored rows not recorded with their Transfer are copied on their own: rows with
    // their own key and payload, and any row whose log is missing or not a Transfer; but not
    // the rows this rollback leaves as they are (a pending retraction moves down to the
    // fork below, unchanged).
    m_db.run(
        QStringLiteral("INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, "
                       "block_number, log_index, block_hash, event_key, value) SELECT ?, "
                       "o.environment_id, o.chain_id, CASE WHEN o.delivered_at IS NULL THEN "
                       "'outbox_dropped' ELSE 'outbox_delivered_reorged' END, o.block_number, "
                       "o.log_index, l.block_hash, o.event_key, o.payload FROM outbox_store o LEFT "
                       "JOIN log_store l ON ") +
            sameLog +
            QStringLiteral(" WHERE o.environment_id = ? AND o.chain_id = ? AND "
                           "o.block_number > ? AND (o.log_index IS NULL OR "
                           "l.transfer_value IS NULL) AND NOT ") +
            kKeptOutboxRow,
        {r.reorgId, m_env, chainId, above});
    // Delivered rows an earlier reorg already retracted have lost their log (log_index is
    // NULL): they are not this reorg's to count again.
    QSqlQuery delivered = m_db.run(QStringLiteral("SELECT count(*) FROM outbox_store WHERE "
                                                  "environment_id = ? AND chain_id = ? AND "
                                                  "block_number > ? AND delivered_at IS NOT "
                                                  "NULL AND log_index IS NOT NULL"),
                                   scope);
    r.deliveredAffected = delivered.next() ? delivered.value(0).toLongLong() : 0;
    if (r.deliveredAffected + r.unconfirmedRetracted > 0) {
        // A consumer may have acted on those: give it a compensating "retracted" message for
        // each, enqueued at the fork height so it is deliverable as soon as the fork is safe.
        // Rendered from the logs, so before step 2.
        const QString rows =
            QStringLiteral("SELECT event_key AS k, payload AS p FROM outbox WHERE "
                           "environment_id = ? AND chain_id = ? AND block_number > ? AND "
                           "delivered_at IS NOT NULL AND event_key NOT LIKE 'retract:%' UNION "
                           "ALL SELECT ") +
            store::outboxEventKeySql() + QStringLiteral(", ") + store::outboxPayloadSql() +
            QStringLiteral(" FROM outbox_store o JOIN log_store l ON ") + sameLog +
            QStringLiteral(" WHERE o.environment_id = ? AND o.chain_id = ? AND o.block_number "
                           "> ? AND o.delivered_at IS NULL AND o.failed_at IS NULL AND "
                           "l.transfer_value IS NOT NULL");
        m_db.run(QStringLiteral("INSERT INTO outbox_store (environment_id, chain_id, "
                                "block_number, event_key, payload) SELECT ?, ?, ?, 'retract:' || "
                                "k, '{\"type\":\"retracted\",\"eventKey\":\"' || k || "
                                "'\",\"reorgId\":' || ? || ',\"forkBlock\":' || ? || "
                                "',\"original\":' || p || '}' FROM (") +
                     rows + QStringLiteral(") WHERE k IS NOT NULL ON CONFLICT DO NOTHING"),
                 QVariantList{m_env, chainId, std::max<qint64>(above, 0), r.reorgId, above} +
                     scope + scope);
    }
    // Rows not delivered go with the data (those taken up were retracted above); a pending
    // retraction still has to reach the consumer, at the new fork's height.
    const qint64 deleted =
        m_db.run(QStringLiteral("DELETE FROM outbox_store AS o WHERE o.environment_id = ? AND "
                                "o.chain_id = ? AND o.block_number > ? AND o.delivered_at IS "
                                "NULL AND NOT ") +
                     kPendingRetraction,
                 scope)
            .numRowsAffected();
    r.outboxDropped = deleted - r.unconfirmedRetracted;
    m_db.run(QStringLiteral("UPDATE outbox_store AS o SET block_number = ? WHERE "
                            "o.environment_id = ? AND o.chain_id = ? AND o.block_number > ? AND ") +
                 kPendingRetraction,
             {std::max<qint64>(above, 0), m_env, chainId, above});
    if (r.deliveredAffected > 0)
        // The delivered rows outlive their logs: they keep their key and payload as text
        // from now on, so the record of what the consumer received never changes.
        m_db.run(QStringLiteral("UPDATE outbox_store AS o SET event_key = ") +
                     store::outboxEventKeySql() + QStringLiteral(", payload = ") +
                     store::outboxPayloadSql() +
                     QStringLiteral(", log_index = NULL FROM log_store AS l WHERE "
                                    "o.environment_id = ? AND o.chain_id = ? AND o.block_number "
                                    "> ? AND o.log_index IS NOT NULL AND ") +
                     sameLog,
                 scope);
    return storedTransferRows;
}

qint64 ReorgRollback::countTransfersAbove(qint64 above) const
{
    store::SqliteStatement q(m_db, "SELECT count(*) FROM log_store WHERE environment_id = ?1 AND "
                                   "chain_id = ?2 AND block_number > ?3 AND transfer_value IS "
                                   "NOT NULL");
    bindScope(q, above);
    return q.next() ? q.int64(0) : 0;
}

bool ReorgRollback::isWalFile()
{
    // A second connection sees this file's committed state only if it is a file, and reads
    // beside this connection's write lock only in WAL mode (the writer's never changes).
    if (!m_walFile) {
        QSqlQuery q = m_db.run(QStringLiteral("PRAGMA journal_mode"));
        m_walFile = q.next() && q.value(0).toString() == QLatin1String("wal");
    }
    return *m_walFile;
}

bool ReorgRollback::anyStoredOutboxRowAbove(qint64 above) const
{
    store::SqliteStatement q(m_db, "SELECT 1 FROM outbox_store INDEXED BY outbox_store_log WHERE "
                                   "environment_id = ?1 AND chain_id = ?2 AND block_number > ?3 "
                                   "LIMIT 1");
    bindScope(q, above);
    return q.hasRow();
}

void ReorgRollback::recordBalanceChanges(store::Database& db, qint64 reorgId, const QString& env,
                                         std::uint64_t chainId, const QList<BalanceChange>& changes)
{
    if (changes.isEmpty())
        return;
    // A deep reorg changes thousands of balances: their rows go in statements of 64
    // (store/MultiRowInsert.h), a fifth of the rollback's cost when each was its own.
    store::MultiRowInsert ins(db,
                              "INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, "
                              "kind, contract, holder, before_value, after_value)",
                              8, QByteArray(), 64);
    const QByteArray envUtf8 = env.toUtf8();
    static const QByteArray kind = QByteArrayLiteral("balance_changed");
    ins.start(changes.size(), true);
    for (const BalanceChange& c : changes)
        ins.add([&](store::RowBinder& row) {
            row.bind(1, std::int64_t(reorgId));
            row.bind(2, envUtf8);
            row.bind(3, std::int64_t(chainId));
            row.bind(4, kind);
            row.bindBytes(5, c.key.contract);
            row.bindBytes(6, c.key.holder);
            if (c.before.isEmpty())
                row.bindNull(7);
            else
                row.bind(7, c.before);
            if (c.after.isEmpty())
                row.bindNull(8);
            else
                row.bind(8, c.after);
        });
    ins.finish();
}

} // namespace forkscope::indexer
