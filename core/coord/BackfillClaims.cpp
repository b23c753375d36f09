#include "BackfillClaims.h"
#include "CoordinationErrors.h"
#include "store/pg/PgConnection.h"

#include <algorithm>

namespace forkscope::coord {

using store::pg::PgConnection;

BackfillClaims::BackfillClaims(PgConnection& db, QString environmentId, qint64 chainId,
                               QString owner, std::chrono::milliseconds lease)
    : m_db(db), m_env(environmentId.toUtf8()), m_chain(QByteArray::number(chainId)),
      m_owner8(owner.toUtf8()), m_owner(std::move(owner)),
      m_leaseMs(QByteArray::number(qint64(lease.count())))
{
}

void BackfillClaims::lockPlanners(PgConnection& db, const QByteArray& environmentId,
                                  const QByteArray& chainId)
{
    db.run("coord_plan_lock", "SELECT pg_advisory_xact_lock(hashtext($1::text || '/' || $2::text))",
           {environmentId, chainId});
}

int BackfillClaims::plan(qint64 fromBlock, qint64 toBlock, qint64 size)
{
    if (size < 1 || toBlock < fromBlock)
        throw CoordinationError(QStringLiteral("cannot plan blocks %1 to %2 in ranges of %3")
                                    .arg(fromBlock)
                                    .arg(toBlock)
                                    .arg(size));
    m_db.begin();
    try {
        lockPlanners(m_db, m_env, m_chain);
        // Ranges are contiguous from the first planned block; a later plan (a process
        // started when the head had moved on) only appends above the last range. Another
        // first block would leave a hole or an overlap: refused.
        const auto have = m_db.run("coord_plan_have",
                                   "SELECT min(from_block), max(to_block) FROM range_store "
                                   "WHERE environment_id = $1 AND chain_id = $2",
                                   {m_env, m_chain});
        qint64 next = fromBlock;
        if (!have.isNull(0, 0)) {
            if (have.int64(0, 0) != fromBlock)
                throw CoordinationError(
                    QStringLiteral("range_store of %1 start at block %2; this process was "
                                   "started with --from-block %3: use the same first block in "
                                   "every process")
                        .arg(QString::fromUtf8(m_env))
                        .arg(have.int64(0, 0))
                        .arg(fromBlock));
            next = have.int64(0, 1) + 1;
        }
        const auto added = m_db.run(
            "coord_plan_insert",
            "INSERT INTO range_store (environment_id, chain_id, from_block, to_block) "
            "SELECT $1::text, $2::bigint, f, LEAST(f + $5::bigint - 1, $4::bigint) FROM "
            "generate_series($3::bigint, $4::bigint, $5::bigint) AS f ON CONFLICT DO NOTHING",
            {m_env, m_chain, QByteArray::number(next), QByteArray::number(toBlock),
             QByteArray::number(size)});
        m_db.commit();
        return int(added.affected());
    } catch (...) {
        m_db.rollback();
        throw;
    }
}

std::optional<RangeClaim> BackfillClaims::claim(qint64 maxTo, qint64 maxBlocks)
{
    if (!m_ownerLocked) {
        // Held for as long as this session lives: others see the owner as alive.
        m_ownerLocked =
            m_db.run("coord_owner_lock", "SELECT pg_try_advisory_lock($2::int, hashtext($1::text))",
                     {m_owner8, QByteArray::number(kOwnerLockClass)})
                .text(0, 0) == "t";
        if (!m_ownerLocked)
            throw CoordinationError(
                QStringLiteral("another live process claims ranges as %1: each process needs "
                               "its own owner name")
                    .arg(QString::fromUtf8(m_owner8)));
    }
    // Blocks, not a block number: bounded so that from_block + it stays a bigint.
    const qint64 blocks = std::clamp<qint64>(maxBlocks, 1, qint64(1) << 40);
    m_db.begin();
    try {
        // A claim that cuts a range adds one: under the planners' lock, so that a rollback
        // removing the ranges above its fork sees the cut range whole or both its parts.
        lockPlanners(m_db, m_env, m_chain);
        // clock_timestamp(), not now(): now() is the transaction's start, and the lease is a
        // promise about wall time. SKIP LOCKED: a range another claimer is taking right now
        // is simply not a candidate, so claimers never queue behind each other.
        const auto r = m_db.run(
            "coord_claim",
            // A CTE, not a subquery in FROM: the planner may rescan a FROM subquery for each
            // target row, and with SKIP LOCKED every rescan picks the next free range (one
            // claim took them all). A locking CTE runs once.
            "WITH c AS (SELECT from_block, to_block AS planned_to, status AS prev_status, owner "
            "AS prev_owner, lease_until >= clock_timestamp() AS owner_gone FROM "
            // An owner whose session ended no longer holds its lock: the try succeeds (the
            // transaction-scoped lock it takes goes at this transaction's commit). A live
            // owner's fails. Never this claimer's own ranges, whose lock its session holds.
            // A failed range is claimed too: marked and shown, never skipped.
            "range_store WHERE environment_id = $1 AND chain_id = $2 AND from_block <= $6 AND "
            "(status IN ('pending', 'failed') OR (status = 'running' AND (lease_until < "
            "clock_timestamp() OR (owner <> $3::text AND pg_try_advisory_xact_lock($5::int, "
            "hashtext(owner)))))) ORDER BY from_block LIMIT 1 FOR UPDATE SKIP LOCKED), "
            "t AS (UPDATE range_store r SET status = 'running', owner = $3::text, to_block = "
            "LEAST(c.planned_to, $6::bigint, r.from_block + $7::bigint - 1), lease_until = "
            "clock_timestamp() + $4::bigint * interval '1 millisecond', attempts = r.attempts + "
            "1, updated_at = clock_timestamp(), last_error = CASE WHEN c.prev_status = 'running' "
            "THEN CASE WHEN c.owner_gone THEN 'the session of ' || c.prev_owner || ' ended (its "
            "process is gone)' ELSE 'lease of ' || c.prev_owner || ' ran out' END || '; taken "
            "over by ' || $3 ELSE r.last_error END FROM c WHERE r.environment_id = $1 AND "
            "r.chain_id = $2 AND r.from_block = c.from_block RETURNING r.from_block, r.to_block, "
            "r.attempts, CASE WHEN c.prev_status = 'running' THEN c.prev_owner END AS "
            "prev_owner, c.owner_gone, c.planned_to), "
            // The blocks cut off stay to be claimed, as a range of their own.
            "rest AS (INSERT INTO range_store (environment_id, chain_id, from_block, to_block) "
            "SELECT $1::text, $2::bigint, t.to_block + 1, t.planned_to FROM t WHERE "
            "t.planned_to > t.to_block) "
            "SELECT from_block, to_block, attempts, prev_owner, owner_gone FROM t",
            {m_env, m_chain, m_owner8, m_leaseMs, QByteArray::number(kOwnerLockClass),
             QByteArray::number(maxTo), QByteArray::number(blocks)});
        m_db.commit();
        if (r.rows() == 0)
            return std::nullopt;
        RangeClaim c;
        c.fromBlock = r.int64(0, 0);
        c.toBlock = r.int64(0, 1);
        c.attempts = int(r.int64(0, 2));
        if (!r.isNull(0, 3)) {
            c.takenOverFrom = QString::fromUtf8(r.text(0, 3));
            c.ownerGone = r.text(0, 4) == "t";
        }
        return c;
    } catch (...) {
        m_db.rollback();
        throw;
    }
}

int BackfillClaims::dropAbove(qint64 head)
{
    m_db.begin();
    try {
        lockPlanners(m_db, m_env, m_chain);
        // Above every range done or in hand, so no hole opens between them and the head.
        const QList<QByteArray> params{m_env, m_chain, QByteArray::number(head)};
        const qint64 bound =
            m_db.run("coord_drop_bound",
                     "SELECT greatest($3::bigint, max(to_block)) FROM range_store WHERE "
                     "environment_id = $1 AND chain_id = $2 AND status IN ('running', 'done')",
                     params)
                .int64(0, 0);
        const QList<QByteArray> above{m_env, m_chain, QByteArray::number(bound)};
        const qint64 dropped =
            m_db.run("coord_drop_above",
                     "DELETE FROM range_store WHERE environment_id = $1 AND chain_id = $2 AND "
                     "from_block > $3 AND status IN ('pending', 'failed')",
                     above)
                .affected();
        m_db.run("coord_drop_cut",
                 "UPDATE range_store SET to_block = $3, updated_at = clock_timestamp() WHERE "
                 "environment_id = $1 AND chain_id = $2 AND from_block <= $3 AND to_block > $3 "
                 "AND status IN ('pending', 'failed')",
                 above);
        m_db.commit();
        return int(dropped);
    } catch (...) {
        m_db.rollback();
        throw;
    }
}

bool BackfillClaims::renew(const RangeClaim& claim)
{
    return m_db.run("coord_renew",
                    "UPDATE range_store SET lease_until = clock_timestamp() + $5::bigint * "
                    "interval '1 millisecond' WHERE environment_id = $1 AND chain_id = $2 AND "
                    "from_block = $3 AND status = 'running' AND owner = $4",
                    {m_env, m_chain, QByteArray::number(claim.fromBlock), m_owner8, m_leaseMs})
               .affected() == 1;
}

void BackfillClaims::finish(const RangeClaim& claim, const chain::Hash32& parentHash,
                            const chain::Hash32& lastHash)
{
    if (!m_db.inTransaction())
        throw CoordinationError(QStringLiteral(
            "BackfillClaims::finish outside a transaction: the range's rows and its done mark "
            "must commit together"));
    // Owner, not lease time: a lease that ran out while nobody took the range over is
    // still ours. A claimer that did take it changed the owner under the row lock, which
    // this UPDATE waits for and then re-reads (READ COMMITTED), so exactly one side wins.
    const auto r = m_db.run(
        "coord_finish",
        "UPDATE range_store SET status = 'done', owner = NULL, lease_until = NULL, "
        "parent_hash = $5, last_hash = $6, updated_at = clock_timestamp() WHERE "
        "environment_id = $1 AND chain_id = $2 AND from_block = $3 AND status = 'running' AND "
        "owner = $4",
        {m_env, m_chain, QByteArray::number(claim.fromBlock), m_owner8,
         PgConnection::byteaParam(parentHash.toByteArray()),
         PgConnection::byteaParam(lastHash.toByteArray())});
    if (r.affected() != 1)
        throw LeaseLostError(QStringLiteral("range %1-%2 of %3 is no longer held by %4: its "
                                            "lease ran out and another process took it over; "
                                            "this process's rows for it are rolled back")
                                 .arg(claim.fromBlock)
                                 .arg(claim.toBlock)
                                 .arg(QString::fromUtf8(m_env), m_owner));
}

void BackfillClaims::fail(const RangeClaim& claim, const QString& error, int maxAttempts)
{
    m_db.run("coord_fail",
             "UPDATE range_store SET status = CASE WHEN attempts >= $6 THEN 'failed' ELSE "
             "'pending' END, owner = NULL, lease_until = NULL, last_error = $5, updated_at = "
             "clock_timestamp() WHERE environment_id = $1 AND chain_id = $2 AND from_block = $3 "
             "AND status = 'running' AND owner = $4",
             {m_env, m_chain, QByteArray::number(claim.fromBlock), m_owner8, error.toUtf8(),
              QByteArray::number(maxAttempts)});
}

void BackfillClaims::release(const RangeClaim& claim)
{
    m_db.run("coord_release",
             "UPDATE range_store SET status = 'pending', owner = NULL, lease_until = NULL, "
             "attempts = attempts - 1, updated_at = clock_timestamp() WHERE environment_id = $1 "
             "AND chain_id = $2 AND from_block = $3 AND status = 'running' AND owner = $4",
             {m_env, m_chain, QByteArray::number(claim.fromBlock), m_owner8});
}

qint64 BackfillClaims::retryFailed()
{
    return m_db
        .run("coord_retry_failed",
             "UPDATE range_store SET status = 'pending', attempts = 0, updated_at = "
             "clock_timestamp() WHERE environment_id = $1 AND chain_id = $2 AND status = "
             "'failed'",
             {m_env, m_chain})
        .affected();
}

QString BackfillClaims::firstFailed()
{
    const auto r = m_db.run("coord_first_failed",
                            "SELECT from_block, to_block, coalesce(last_error, '') FROM "
                            "range_store WHERE environment_id = $1 AND chain_id = $2 AND "
                            "status = 'failed' ORDER BY from_block LIMIT 1",
                            {m_env, m_chain});
    if (r.rows() == 0)
        return {};
    return QStringLiteral("%1-%2: %3")
        .arg(r.int64(0, 0))
        .arg(r.int64(0, 1))
        .arg(QString::fromUtf8(r.text(0, 2)));
}

RangeCounts BackfillClaims::counts()
{
    const auto r = m_db.run(
        "coord_counts",
        "SELECT count(*) FILTER (WHERE status = 'pending'), count(*) FILTER (WHERE status = "
        "'running'), count(*) FILTER (WHERE status = 'done'), count(*) FILTER (WHERE status = "
        "'failed') FROM range_store WHERE environment_id = $1 AND chain_id = $2",
        {m_env, m_chain});
    return RangeCounts{r.int64(0, 0), r.int64(0, 1), r.int64(0, 2), r.int64(0, 3)};
}

} // namespace forkscope::coord
