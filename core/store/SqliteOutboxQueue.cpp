#include "SqliteOutboxQueue.h"
#include "BinaryContract.h"
#include "Database.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/RenderedOutbox.h"

#include <QSqlQuery>

namespace forkscope::store {

SqliteOutboxQueue::SqliteOutboxQueue(const QString& path, QString environmentId,
                                     std::uint64_t chainId)
    : m_owned(Database::open(path)), m_db(*m_owned), m_env(std::move(environmentId)),
      m_chainId(chainId)
{
}

SqliteOutboxQueue::SqliteOutboxQueue(Database& db, QString environmentId, std::uint64_t chainId)
    : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId)
{
}

SqliteOutboxQueue::~SqliteOutboxQueue() = default;

QString SqliteOutboxQueue::describe() const
{
    return m_db.path();
}

QString SqliteOutboxQueue::archivedAt()
{
    QSqlQuery q = m_db.run(QStringLiteral("SELECT archived_at FROM environments WHERE "
                                          "environment_id = ? AND archived_at IS NOT NULL"),
                           {m_env});
    return q.next() ? q.value(0).toString() : QString();
}

QList<outbox::OutboxRow> SqliteOutboxQueue::next(std::uint64_t safeHeight, int limit,
                                                 std::optional<outbox::OutboxRow>* orphan)
{
    // A pending Transfer's row is rendered from its log until delivery touches it: the rows
    // this round may send are stored first, so each has an id (store/PendingOutboxContract.h).
    outbox::storeRenderedRows(m_db, m_env, m_chainId, safeHeight, limit);
    QList<outbox::OutboxRow> rows;
    // Only rows deep enough that a reorg is no longer expected to remove them. A Transfer's
    // key and payload are rendered from its stored log (contract v4); within a block,
    // Transfers go by log index, then rows that name no log (retractions).
    QSqlQuery q = m_db.run(
        QStringLiteral("SELECT o.id, o.block_number, coalesce(o.event_key, ") +
            outboxEventKeySql() + QStringLiteral("), coalesce(o.payload, ") + outboxPayloadSql() +
            QStringLiteral(") FROM outbox_store o LEFT JOIN log_store l ON "
                           "l.environment_id = o.environment_id AND l.chain_id = "
                           "o.chain_id AND l.block_number = o.block_number AND l.log_index = "
                           "o.log_index WHERE o.environment_id = ? AND o.chain_id = ? AND "
                           "o.delivered_at IS NULL AND o.failed_at IS NULL AND "
                           "o.block_number <= ? ORDER BY o.block_number, o.log_index IS "
                           "NULL, o.log_index, o.id LIMIT ?"),
        {m_env, qint64(m_chainId), qint64(safeHeight), limit});
    while (q.next()) {
        const outbox::OutboxRow row{q.value(0).toLongLong(), q.value(1).toULongLong(),
                                    q.value(2).toString(), q.value(3).toString().toUtf8()};
        if (q.value(3).isNull()) {
            *orphan = row;
            break;
        }
        rows.append(row);
    }
    return rows;
}

void SqliteOutboxQueue::markDelivered(const QList<outbox::OutboxRow>& rows)
{
    // One transaction for the batch. Conditional: a rollback may have removed a row while
    // it was in flight; it was sent (and is retracted by the reorg's compensating note if
    // it was kept as delivered).
    const QString now = nowUtc();
    WriteTransaction tx(m_db);
    for (const outbox::OutboxRow& row : rows)
        m_db.runCached(QStringLiteral("UPDATE outbox_store SET delivered_at = ?, attempts = "
                                      "attempts + 1 WHERE id = ? AND delivered_at IS NULL"),
                       {now, row.id});
    tx.commit();
}

void SqliteOutboxQueue::markFailed(const outbox::OutboxRow& row, const QString& error)
{
    WriteTransaction tx(m_db);
    m_db.run(QStringLiteral("UPDATE outbox_store SET failed_at = ?, last_error = ?, attempts = "
                            "attempts + 1 WHERE id = ?"),
             {nowUtc(), error, row.id});
    tx.commit();
}

void SqliteOutboxQueue::markRetry(const QList<outbox::OutboxRow>& rows, const QString& error)
{
    // Bookkeeping only (shown per row): the wait before the next try comes from the
    // sink's failure streak, never from these counts.
    WriteTransaction tx(m_db);
    for (const outbox::OutboxRow& row : rows)
        m_db.runCached(
            QStringLiteral(
                "UPDATE outbox_store SET last_error = ?, attempts = attempts + 1 WHERE id = ?"),
            {error, row.id});
    tx.commit();
}

qint64 SqliteOutboxQueue::pendingAtOrBelow(std::uint64_t safeHeight)
{
    return outbox::pendingAtOrBelow(m_db, m_env, m_chainId, safeHeight);
}

} // namespace forkscope::store
