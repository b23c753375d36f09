#include "OutboxDispatcher.h"
#include "RenderedOutbox.h"
#include "indexer/CrashPoints.h"
#include "store/BinaryContract.h"
#include "store/Database.h"
#include "store/SqliteStatement.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace forkscope::outbox {

qint64 pendingAtOrBelow(store::Database& db, const QString& environmentId, std::uint64_t chainId,
                        std::uint64_t safeHeight)
{
    // One statement, one snapshot: a delivery round storing rendered rows between a count of
    // the stored rows and one of the rendered would hide them from both.
    store::SqliteStatement q(
        db, QStringLiteral("SELECT (SELECT count(*) FROM outbox_store WHERE environment_id = ?1 "
                           "AND chain_id = ?2 AND delivered_at IS NULL AND failed_at IS NULL AND "
                           "block_number <= ?3) + ") +
                renderedPendingCountSql());
    bindRenderedPendingCount(q, environmentId, chainId, safeHeight);
    return q.next() ? q.int64(0) : 0;
}

OutboxCounts countRows(store::Database& db, const QString& environmentId, std::uint64_t chainId)
{
    store::SqliteStatement q(
        db, QStringLiteral("SELECT count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS "
                           "NULL), count(*) FILTER (WHERE delivered_at IS NOT NULL), count(*) "
                           "FILTER (WHERE delivered_at IS NULL AND failed_at IS NOT NULL), ") +
                renderedPendingCountSql() +
                QStringLiteral(" FROM outbox_store WHERE environment_id = ?1 AND chain_id = ?2"));
    bindRenderedPendingCount(q, environmentId, chainId, std::numeric_limits<std::uint64_t>::max());
    OutboxCounts c;
    if (q.next()) {
        c.pending = q.int64(0) + q.int64(3);
        c.delivered = q.int64(1);
        c.failed = q.int64(2);
    }
    return c;
}

RoundResult OutboxDispatcher::deliverRound(std::uint64_t safeHeight, int limit)
{
    RoundResult r;
    if (!m_queue.mayDeliver()) {
        r.notHolder = true;
        return r;
    }
    // Archived means read-only history of a chain that is gone (a lab reset). Undelivered
    // rows there stay undelivered, as rows above a fork point would be dropped.
    if (const QString at = m_queue.archivedAt(); !at.isEmpty()) {
        r.archived = true;
        r.lastError = QStringLiteral("environment %1 was archived at %2: its outbox rows are not "
                                     "delivered (its chain was reset); deliver from the live "
                                     "environment instead")
                          .arg(m_queue.environmentId(), at);
        return r;
    }
    std::optional<OutboxRow> orphan; // the first stops the read: rows after it wait their turn
    const QList<OutboxRow> rows = m_queue.next(safeHeight, limit, &orphan);
    if (orphan) {
        // The row names a log that is not stored: the file was edited outside Forkscope.
        // Sending an empty or guessed payload would invent an event.
        m_queue.markFailed(*orphan,
                           QStringLiteral("outbox row %1 (block %2) names a log that is not in "
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
    for (qsizetype at = 0; at < rows.size() && !(m_stop && m_stop->stopRequested());) {
        const qsizetype size = at < oneByOneUntil ? 1 : std::min(maxBatch, rows.size() - at);
        const QList<OutboxRow> batch = rows.mid(at, size);
        const DeliveryResult d = m_sink.deliver(batch);
        ++r.attempts;
        if (d.outcome == DeliveryResult::Outcome::Retry) {
            ++m_failureStreak;
            m_queue.markRetry(batch, d.detail);
            r.blocked = true;
            r.retryAfter = m_backoff.delay(m_failureStreak);
            r.lastError = d.detail;
            break; // keep the order: nothing after this batch goes before it
        }
        m_failureStreak = 0; // the sink answered for good: it works
        if (d.outcome == DeliveryResult::Outcome::Delivered) {
            indexer::crashPoint("mid-delivery");
            m_queue.markDelivered(batch);
            r.delivered += int(size);
        } else if (size > 1) {
            // A refusal of the whole batch names no row: ask again row by row, so only
            // the one the receiver refuses is marked failed.
            oneByOneUntil = at + size;
            r.lastError = d.detail;
            continue;
        } else {
            m_queue.markFailed(batch.first(), d.detail);
            ++r.failed;
            r.lastError = d.detail;
        }
        at += size;
    }
    return r;
}

} // namespace forkscope::outbox
