#include "SharedRollback.h"
#include "AbsenceAlertPlan.h"
#include "CrashPoints.h"
#include "IndexerErrors.h"
#include "PgBatchRows.h"
#include "PgEnvironmentRegistry.h"
#include "PgReorgDiff.h"
#include "ReorgReason.h"
#include "coord/BackfillClaims.h"
#include "coord/SessionLock.h"
#include "coord/SharedAlerts.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"

#include <QDateTime>
#include <limits>

namespace forkscope::indexer {

using store::pg::PgConnection;

QString UndoneReorg::describe() const
{
    return QStringLiteral("REORG (%1): checkpoint %2 -> fork %3, depth %4, %5 rows removed, %6 "
                          "delivered outbox rows retracted")
        .arg(reason)
        .arg(checkpoint)
        .arg(fork)
        .arg(checkpoint - fork)
        .arg(removed)
        .arg(delivered);
}

SharedRollback::SharedRollback(PgConnection& db, coord::PrefixCheckpoint& checkpoint,
                               QString environmentId, qint64 chainId, QString sourceId)
    : m_db(db), m_checkpoint(checkpoint), m_environmentId(std::move(environmentId)),
      m_env(m_environmentId.toUtf8()), m_chain(QByteArray::number(chainId)),
      m_sourceId(std::move(sourceId))
{
}

std::optional<UndoneReorg> SharedRollback::undoAbove(const coord::SharedCheckpoint& cp,
                                                     const ForkPoint& fork, const QString& reason)
{
    const QByteArray above = QByteArray::number(qint64(*fork.number));
    m_db.begin();
    PgEnvironmentRegistry(m_db).requireLive(m_environmentId);
    const qint64 delivered =
        m_db.run("follow_delivered_above",
                 "SELECT count(*) FROM outbox_store WHERE environment_id = $1 AND chain_id = "
                 "$2 AND block_number > $3 AND delivered_at IS NOT NULL",
                 {m_env, m_chain, above})
            .int64(0, 0);
    const qint64 depth = cp.blockNumber - qint64(*fork.number);
    const qint64 reorgId =
        m_db.run("follow_reorg_event",
                 "INSERT INTO reorg_events (environment_id, chain_id, detected_at, "
                 "old_block_number, fork_block_number, depth, reason, rows_removed, "
                 "source_id, old_block_hash, fork_block_hash, delivered_outbox_rows) VALUES "
                 "($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, $11) RETURNING id",
                 {m_env, m_chain,
                  QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs).toUtf8(),
                  QByteArray::number(cp.blockNumber), above, QByteArray::number(depth),
                  reason.toUtf8(), m_sourceId.toUtf8(), cp.blockHash.toHex().toUtf8(),
                  fork.hash.toHex().toUtf8(), QByteArray::number(delivered)})
            .int64(0, 0);
    recordPgReorgDiff(m_db, {m_env, m_chain, above, QByteArray::number(reorgId),
                             QByteArray::number(cp.blockNumber)});
    if (delivered > 0) {
        // A consumer already acted on those (as in SQLite, ReorgRollback): a compensating
        // "retracted" message for each, enqueued at the fork height so that it goes out
        // as soon as the fork is indexed; then the delivered rows outlive their logs,
        // keeping the key and payload the consumer received as text.
        m_db.run("follow_retract",
                 "INSERT INTO outbox_store (environment_id, chain_id, block_number, "
                 "event_key, payload) SELECT environment_id, chain_id, $3::bigint, "
                 "'retract:' || event_key, '{\"type\":\"retracted\",\"eventKey\":\"' || "
                 "event_key || '\",\"reorgId\":' || $4::bigint || ',\"forkBlock\":' || "
                 "$3::bigint || ',\"original\":' || payload || '}' FROM outbox WHERE "
                 "environment_id = $1 AND chain_id = $2 AND block_number > $3::bigint AND "
                 "delivered_at IS NOT NULL AND event_key NOT LIKE 'retract:%' ON CONFLICT DO "
                 "NOTHING",
                 {m_env, m_chain, above, QByteArray::number(reorgId)});
        const QByteArray keep =
            "UPDATE outbox_store o SET event_key = " + store::pg::pgOutboxEventKeySql() +
            ", payload = " + store::pg::pgOutboxPayloadSql() +
            ", log_index = NULL FROM log_store l WHERE o.environment_id "
            "= $1 AND o.chain_id = $2 AND o.block_number > $3 AND "
            "o.delivered_at IS NOT NULL AND o.log_index IS NOT NULL AND "
            "l.environment_id = o.environment_id AND l.chain_id = "
            "o.chain_id AND l.block_number = o.block_number AND "
            "l.log_index = o.log_index";
        m_db.run("follow_keep_delivered", keep.constData(), {m_env, m_chain, above});
    }
    const qint64 removed =
        PgBatchRows::removeBlocks(m_db, m_env, m_chain, qint64(*fork.number) + 1,
                                  std::numeric_limits<qint64>::max()) +
        m_db.run("follow_cut_ranges",
                 "DELETE FROM backfill_ranges WHERE environment_id = $1 AND chain_id = $2 AND "
                 "from_block > $3",
                 {m_env, m_chain, above})
            .affected();
    m_db.run("follow_cut_range",
             "UPDATE backfill_ranges SET to_block = $3, last_hash = $4 WHERE environment_id "
             "= $1 AND chain_id = $2 AND from_block <= $3 AND to_block > $3",
             {m_env, m_chain, above, PgConnection::byteaParam(fork.hash.toByteArray())});
    m_db.run("follow_reorg_removed", "UPDATE reorg_events SET rows_removed = $2 WHERE id = $1",
             {QByteArray::number(reorgId), QByteArray::number(removed)});
    // An absence suspicion about blocks this removes is settled: they are indexed again.
    coord::resolveAbsenceAbove(m_db, m_environmentId, quint64(m_chain.toLongLong()),
                               qint64(*fork.number), absenceRolledBackResolution(reorgId));
    crashPoint("mid-rollback");

    if (!m_checkpoint.swap(cp, qint64(*fork.number), fork.hash)) {
        // another writer moved it meanwhile: look again
        m_db.rollback();
        return std::nullopt;
    }
    m_db.commit();
    return UndoneReorg{cp.blockNumber, qint64(*fork.number), removed, delivered, reason};
}

qint64 SharedRollback::forRepair(coord::SessionLock& lock, coord::BackfillClaims& ranges,
                                 std::uint64_t from, const std::function<void(const QString&)>& say)
{
    if (!lock.tryAcquire())
        throw IndexerError(QStringLiteral("another process follows the head of %1 (it holds the "
                                          "head lock): stop it, repair, then start it again; "
                                          "nothing was changed")
                               .arg(m_environmentId));
    const std::optional<coord::SharedCheckpoint> cp = m_checkpoint.read();
    if (const coord::RangeCounts n = ranges.counts(); n.failed > 0)
        throw IndexerError(QStringLiteral("a backfill range of %1 failed (%2): start forkscope "
                                          "index again, which retries it, then repair; nothing "
                                          "was changed")
                               .arg(m_environmentId, ranges.firstFailed()));
    if (!cp || !ranges.counts().allDone())
        throw IndexerError(QStringLiteral("the backfill of %1 is not complete: repair once every "
                                          "range is done; nothing was changed")
                               .arg(m_environmentId));
    // The block below `from`, as stored: the first range's parent when `from` is the first
    // block indexed.
    const QList<QByteArray> scope{m_env, m_chain};
    const auto below = m_db.run(
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
                               .arg(m_environmentId)
                               .arg(std::max<qint64>(start, 1))
                               .arg(cp->blockNumber));
    ForkPoint fork;
    fork.number = from - 1;
    fork.hash = chain::Hash32::fromBytes(below.bytes(0, 0, 32), QStringLiteral("stored hash"));
    const std::optional<UndoneReorg> undone = undoAbove(*cp, fork, reorg_reason::kRepair);
    if (!undone)
        throw IndexerError(QStringLiteral("the checkpoint of %1 moved while it was repaired; "
                                          "nothing was changed: run repair again")
                               .arg(m_environmentId));
    say(undone->describe());
    say(QStringLiteral("repair: rolled back to block %1; indexing %2..%3 again")
            .arg(from - 1)
            .arg(from)
            .arg(cp->blockNumber));
    return cp->blockNumber;
}

} // namespace forkscope::indexer
