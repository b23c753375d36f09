#include "BackfillLedger.h"
#include "store/Database.h"

#include <QDateTime>
#include <QSqlQuery>

namespace forkscope::indexer {

namespace {
const QString kUpsert = QStringLiteral(
    "INSERT INTO backfill_ranges (environment_id, chain_id, from_block, to_block, status, "
    "attempts, last_error, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (environment_id, chain_id, from_block) DO UPDATE SET to_block = "
    "excluded.to_block, status = excluded.status, attempts = MAX(backfill_ranges.attempts, "
    "excluded.attempts), last_error = COALESCE(excluded.last_error, backfill_ranges.last_error), "
    "updated_at = excluded.updated_at");
} // namespace

void BackfillLedger::resetRunning()
{
    store::WriteTransaction tx(m_db);
    m_db.run(QStringLiteral("UPDATE backfill_ranges SET status = 'pending' WHERE environment_id "
                            "= ? AND chain_id = ? AND status = 'running'"),
             {m_env, qint64(m_chainId)});
    tx.commit();
}

void BackfillLedger::markRunning(const QList<std::pair<std::uint64_t, std::uint64_t>>& ranges)
{
    if (ranges.isEmpty())
        return;
    store::WriteTransaction tx(m_db);
    for (const auto& [from, to] : ranges) {
        // A range already done (a restart re-plans it) is not reopened.
        m_db.run(
            QStringLiteral("INSERT INTO backfill_ranges (environment_id, chain_id, from_block, "
                           "to_block, status, attempts, updated_at) VALUES (?, ?, ?, ?, "
                           "'running', 0, ?) ON CONFLICT (environment_id, chain_id, "
                           "from_block) DO UPDATE SET status = 'running', to_block = "
                           "excluded.to_block, updated_at = excluded.updated_at WHERE "
                           "backfill_ranges.status <> 'done'"),
            {m_env, qint64(m_chainId), qint64(from), qint64(to), store::nowUtc()});
    }
    tx.commit();
}

void BackfillLedger::markDone(std::uint64_t from, std::uint64_t to, int attempts)
{
    m_db.runCached(kUpsert,
                   {m_env, qint64(m_chainId), qint64(from), qint64(to), QStringLiteral("done"),
                    attempts, QVariant(QMetaType(QMetaType::QString)), store::nowUtc()});
}

void BackfillLedger::closeCovered(std::uint64_t checkpoint)
{
    m_db.runCached(QStringLiteral("UPDATE backfill_ranges SET status = 'done', updated_at = ? "
                                  "WHERE environment_id = ? AND chain_id = ? AND to_block <= ? "
                                  "AND status <> 'done'"),
                   {store::nowUtc(), m_env, qint64(m_chainId), qint64(checkpoint)});
}

void BackfillLedger::markFailure(std::uint64_t from, std::uint64_t to, int attempts,
                                 const QString& error, bool givenUp)
{
    store::WriteTransaction tx(m_db);
    m_db.run(kUpsert, {m_env, qint64(m_chainId), qint64(from), qint64(to),
                       givenUp ? QStringLiteral("failed") : QStringLiteral("pending"), attempts,
                       error, store::nowUtc()});
    tx.commit();
}

QList<BackfillRange> BackfillLedger::ranges()
{
    QSqlQuery q = m_db.run(QStringLiteral("SELECT from_block, to_block, status, attempts, "
                                          "last_error FROM backfill_ranges WHERE environment_id "
                                          "= ? AND chain_id = ? ORDER BY from_block"),
                           {m_env, qint64(m_chainId)});
    QList<BackfillRange> out;
    while (q.next())
        out.append({q.value(0).toULongLong(), q.value(1).toULongLong(), q.value(2).toString(),
                    q.value(3).toInt(), q.value(4).toString()});
    return out;
}

} // namespace forkscope::indexer
