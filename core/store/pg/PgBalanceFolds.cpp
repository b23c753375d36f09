#include "PgBalanceFolds.h"
#include "PgConnection.h"

namespace forkscope::store::pg {

namespace {

constexpr const char* kRead = "SELECT balances_block, epoch FROM balance_fold_store WHERE "
                              "environment_id = $1 AND chain_id = $2";

// lock_timeout: another writer's fold held the row for longer.
constexpr const char* kLockNotAvailable = "55P03";

QByteArray number(qint64 n)
{
    return QByteArray::number(n);
}

} // namespace

PgBalanceFolds::PgBalanceFolds(QString url, QString owner, QByteArray env, QByteArray chain,
                               int lockTimeoutMs)
    : m_url(std::move(url)), m_owner(std::move(owner)), m_lockTimeoutMs(lockTimeoutMs),
      m_env(std::move(env)), m_chain(std::move(chain))
{
}

PgBalanceFolds::~PgBalanceFolds()
{
    try {
        if (m_sent)
            await();
    } catch (const PgError&) {
        // Nothing of it was written; the next writer's folds take its blocks.
    }
}

PgBalanceFolds::Mark PgBalanceFolds::read(PgConnection& db, bool lock) const
{
    static const QByteArray locked = QByteArray(kRead) + " FOR UPDATE";
    const PgResult r = lock ? db.run("folds_lock", locked.constData(), {m_env, m_chain})
                            : db.run("folds_read", kRead, {m_env, m_chain});
    Mark mark;
    if (r.rows() == 0)
        return mark;
    if (!r.isNull(0, 0))
        mark.block = r.int64(0, 0);
    mark.epoch = r.int64(0, 1);
    return mark;
}

void PgBalanceFolds::foldNow(PgConnection& db, qint64 checkpoint, qint64 upTo,
                             const BatchBalances& batch)
{
    // Locked: a fold sent earlier finishes first, or finds the row moved and does nothing.
    const Mark mark = read(db, true);
    addBalances(db, m_env, m_chain, mark.block.value_or(checkpoint), upTo, batch);
    // A writer following the head commits no more ranges to forget them at.
    m_committed.forgetThrough(upTo);
    if (mark.block)
        db.run("folds_done",
               "UPDATE balance_fold_store SET balances_block = NULL, epoch = epoch + 1 WHERE "
               "environment_id = $1 AND chain_id = $2",
               {m_env, m_chain});
}

std::optional<PgBalanceFolds::Later> PgBalanceFolds::onMove(PgConnection& db, qint64 from,
                                                            qint64 to, const BatchBalances& batch,
                                                            bool atTheHead, qint64 batchTransfers,
                                                            qint64 foldAfter)
{
    if (atTheHead || foldAfter <= 0) {
        foldNow(db, from, to, batch);
        return std::nullopt;
    }
    // Read after the checkpoint row was locked: only writers holding that lock turn "up to
    // the checkpoint" into a block and back, so whether there is one is current. The block
    // itself may move under a fold sent earlier; a fold decided on an old one does nothing.
    Mark mark = read(db, false);
    if (!mark.block) {
        db.run("folds_wait",
               "INSERT INTO balance_fold_store (environment_id, chain_id, balances_block) VALUES "
               "($1, $2, $3) ON CONFLICT (environment_id, chain_id) DO UPDATE SET balances_block "
               "= excluded.balances_block WHERE balance_fold_store.balances_block IS NULL",
               {m_env, m_chain, number(from)});
        mark.block = from;
    }
    const qint64 folded = *mark.block;
    m_committed.forgetThrough(folded); // balance_store holds those
    // While this writer's own fold from there runs, what it committed since still counts.
    if (m_counted.since != folded && !(m_sent && m_sent->from.block == folded))
        m_counted = {folded, 0};
    m_counted.transfers += batchTransfers;
    if (running() ||
        !foldsNow(false, folded, to,
                  {batchTransfers, batch.last - batch.first + 1, m_counted.transfers}, foldAfter))
        return std::nullopt;
    return Later{mark, to};
}

void PgBalanceFolds::remember(BatchBalances batch, QByteArray lastXmin)
{
    m_committed.remember(std::move(batch), std::move(lastXmin));
}

void PgBalanceFolds::send(const Later& fold)
{
    try {
        if (!m_conn) {
            PgConnection::Options options;
            options.applicationName = QStringLiteral("forkscope %1 (balance folds)").arg(m_owner);
            options.lockTimeoutMs = m_lockTimeoutMs;
            m_conn = PgConnection::open(m_url, options);
        }
        const PgCommittedDeltas::Taken taken = m_committed.take(*fold.from.block, fold.upTo);
        const QByteArray sql = foldIfStillSql(taken.parts);
        m_conn->send(
            foldIfStillName(taken.parts), sql.constData(),
            foldIfStillParams({m_env, m_chain, *fold.from.block, fold.from.epoch, fold.upTo},
                              taken.checks, taken.parts));
        m_sent = fold;
        m_counted = {fold.upTo, 0};
    } catch (const PgError& e) {
        m_conn.reset();
        m_failed = PgError(e.kind(),
                           QStringLiteral("sending the fold of the balances of blocks %1-%2 "
                                          "failed, nothing of it written (the next fold takes "
                                          "those blocks): %3")
                               .arg(*fold.from.block + 1)
                               .arg(fold.upTo)
                               .arg(e.message()),
                           e.sqlState());
    }
}

bool PgBalanceFolds::running()
{
    if (m_failed) {
        const PgError e = *m_failed;
        m_failed.reset();
        throw e;
    }
    if (!m_sent)
        return false;
    try {
        if (!m_conn->sentFinished())
            return true;
    } catch (const PgError& e) {
        const Later fold = *m_sent;
        m_sent.reset();
        if (e.sqlState() == kLockNotAvailable)
            return false;
        m_conn.reset();
        throw PgError(e.kind(),
                      QStringLiteral("folding the balances of blocks %1-%2 failed, nothing of it "
                                     "written (the next fold takes those blocks): %3")
                          .arg(*fold.from.block + 1)
                          .arg(fold.upTo)
                          .arg(e.message()),
                      e.sqlState());
    }
    m_sent.reset();
    return false;
}

qint64 PgBalanceFolds::await()
{
    if (!m_sent)
        return 0;
    m_sent.reset();
    try {
        return m_conn->awaitSent().affected();
    } catch (const PgError& e) {
        if (e.sqlState() == kLockNotAvailable)
            return 0;
        m_conn.reset();
        throw;
    }
}

} // namespace forkscope::store::pg
