#include "OutboxDispatcher.h"
#include "RenderedOutbox.h"
#include "indexer/CrashPoints.h"
#include "store/BinaryContract.h"
#include "store/Database.h"

#include <QDateTime>
#include <QSqlQuery>
#include <algorithm>
#include <optional>

namespace forkscope::outbox {

qint64 pendingAtOrBelow(store::Database& db, const QString& environmentId, std::uint64_t chainId,
                        std::uint64_t safeHeight)
{
    QSqlQuery q =
        db.run(QStringLiteral("SELECT count(*) FROM outbox_store WHERE environment_id = ? "
                              "AND chain_id = ? AND delivered_at IS NULL AND failed_at "
                              "IS NULL AND block_number <= ?"),
               {environmentId, qint64(chainId), qint64(safeHeight)});
    const qint64 stored = q.next() ? q.value(0).toLongLong() : 0;
    return stored + renderedPendingCount(db, environmentId, chainId, safeHeight);
}

OutboxCounts countRows(store::Database& db, const QString& environmentId, std::uint64_t chainId)
{
    QSqlQuery q = db.run(
        QStringLiteral("SELECT count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS NULL), "
                       "count(*) FILTER (WHERE delivered_at IS NOT NULL), "
                       "count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS NOT NULL) "
                       "FROM outbox_store WHERE environment_id = ? AND chain_id = ?"),
        {environmentId, qint64(chainId)});
    OutboxCounts c;
    if (q.next()) {
        c.pending = q.value(0).toLongLong() + renderedPendingCount(db, environmentId, chainId);
        c.delivered = q.value(1).toLongLong();
        c.failed = q.value(2).toLongLong();
    }
    return c;
}

RoundResult OutboxDispatcher::deliverRound(std::uint64_t safeHeight, int limit)
{
    RoundResult r;
    {
        // Archived means read-only history of a chain that is gone (a lab reset). Undelivered
        // rows there stay undelivered, as rows above a fork point would be dropped.
        QSqlQuery q = m_db.run(QStringLiteral("SELECT archived_at FROM environments WHERE "
                                              "environment_id = ? AND archived_at IS NOT NULL"),
                               {m_env});
        if (q.next()) {
            r.archived = true;
            r.lastError = QStringLiteral("environment %1 was archived at %2: its outbox rows are "
                                         "not delivered (its chain was reset); deliver from the "
                                         "live environment instead")
                              .arg(m_env, q.value(0).toString());
            return r;
        }
    }
    // A pending Transfer's row is rendered from its log until delivery touches it: the rows
    // this round may send are stored first, so each has an id (store/PendingOutboxContract.h).
    storeRenderedRows(m_db, m_env, m_chainId, safeHeight, limit);
    QList<OutboxRow> rows;
    std::optional<OutboxRow> orphan; // the first stops the read: rows after it wait their turn
    {
        // Only rows deep enough that a reorg is no longer expected to remove them. A
        // Transfer's key and payload are rendered from its stored log (contract v4); within
        // a block, Transfers go by log index, then rows that name no log (retractions).
        QSqlQuery q = m_db.run(
            QStringLiteral("SELECT o.id, o.block_number, coalesce(o.event_key, ") +
                store::outboxEventKeySql() + QStringLiteral("), coalesce(o.payload, ") +
                store::outboxPayloadSql() +
                QStringLiteral(") FROM outbox_store o LEFT JOIN log_store l ON "
                               "l.environment_id = o.environment_id AND l.chain_id = "
                               "o.chain_id AND l.block_number = o.block_number AND l.log_index = "
                               "o.log_index WHERE o.environment_id = ? AND o.chain_id = ? AND "
                               "o.delivered_at IS NULL AND o.failed_at IS NULL AND "
                               "o.block_number <= ? ORDER BY o.block_number, o.log_index IS "
                               "NULL, o.log_index, o.id LIMIT ?"),
            {m_env, qint64(m_chainId), qint64(safeHeight), limit});
        while (q.next()) {
            const OutboxRow row{q.value(0).toLongLong(), q.value(1).toULongLong(),
                                q.value(2).toString(), q.value(3).toString().toUtf8()};
            if (q.value(3).isNull()) {
                // The row names a log that is not stored: the file was edited outside
                // Forkscope. Sending an empty or guessed payload would invent an event.
                orphan = row;
                break;
            }
            rows.append(row);
        }
    }
    if (orphan) {
        markFailed(*orphan, QStringLiteral("outbox row %1 (block %2) names a log that is not in "
                                           "the database, so it has no payload to send; the "
                                           "file was edited outside Forkscope: run `forkscope "
                                           "verify` and `repair`")
                                .arg(orphan->id)
                                .arg(orphan->blockNumber));
        ++r.failed;
        r.lastError = QStringLiteral("outbox row %1 has no payload").arg(orphan->id);
    }
    const qsizetype maxBatch = std::max(1, m_sink.maxBatch());
    qsizetype oneByOneUntil = 0; // rows before this index go one per call (after a 4xx)
    for (qsizetype at = 0; at < rows.size();) {
        const qsizetype size = at < oneByOneUntil ? 1 : std::min(maxBatch, rows.size() - at);
        const QList<OutboxRow> batch = rows.mid(at, size);
        const DeliveryResult d = m_sink.deliver(batch);
        ++r.attempts;
        if (d.outcome == DeliveryResult::Outcome::Retry) {
            ++m_failureStreak;
            markRetry(batch, d.detail);
            r.blocked = true;
            r.retryAfter = m_backoff.delay(m_failureStreak);
            r.lastError = d.detail;
            break; // keep the order: nothing after this batch goes before it
        }
        m_failureStreak = 0; // the sink answered for good: it works
        if (d.outcome == DeliveryResult::Outcome::Delivered) {
            indexer::crashPoint("mid-delivery");
            markDelivered(batch);
            r.delivered += int(size);
        } else if (size > 1) {
            // A refusal of the whole batch names no row: ask again row by row, so only
            // the one the receiver refuses is marked failed.
            oneByOneUntil = at + size;
            r.lastError = d.detail;
            continue;
        } else {
            markFailed(batch.first(), d.detail);
            ++r.failed;
            r.lastError = d.detail;
        }
        at += size;
    }
    return r;
}

void OutboxDispatcher::markDelivered(const QList<OutboxRow>& rows)
{
    // One transaction for the batch. Conditional: a rollback may have removed a row while
    // it was in flight; it was sent (and is retracted by the reorg's compensating note if
    // it was kept as delivered).
    const QString now = store::nowUtc();
    store::WriteTransaction tx(m_db);
    for (const OutboxRow& row : rows)
        m_db.runCached(QStringLiteral("UPDATE outbox_store SET delivered_at = ?, attempts = "
                                      "attempts + 1 WHERE id = ? AND delivered_at IS NULL"),
                       {now, row.id});
    tx.commit();
}

void OutboxDispatcher::markFailed(const OutboxRow& row, const QString& error)
{
    store::WriteTransaction tx(m_db);
    m_db.run(QStringLiteral("UPDATE outbox_store SET failed_at = ?, last_error = ?, attempts = "
                            "attempts + 1 WHERE id = ?"),
             {store::nowUtc(), error, row.id});
    tx.commit();
}

void OutboxDispatcher::markRetry(const QList<OutboxRow>& rows, const QString& error)
{
    // Bookkeeping only (shown per row): the wait before the next try comes from the
    // sink's failure streak, never from these counts.
    store::WriteTransaction tx(m_db);
    for (const OutboxRow& row : rows)
        m_db.runCached(
            QStringLiteral(
                "UPDATE outbox_store SET last_error = ?, attempts = attempts + 1 WHERE id = ?"),
            {error, row.id});
    tx.commit();
}

} // namespace forkscope::outbox
