#pragma once

#include "OutboxSink.h"

#include <QList>
#include <QString>
#include <cstdint>
#include <optional>

namespace forkscope::outbox {

// The rows waiting to go out of one environment's outbox, as the dispatcher delivers them,
// on either store (OutboxDispatcher is written once over it). Each call is one
// transaction on the queue's own connection: delivery runs on a thread of its own and never
// shares the indexer's.
//
// Both stores render a pending Transfer's row from its log until delivery first touches it
// (store/PendingOutboxContract.h, store/pg/PgPendingOutbox.h), so next() stores the rows it
// hands out first; PostgreSQL shows only those at or below the checkpoint.
class OutboxQueue
{
public:
    virtual ~OutboxQueue();

    // The queue's database, for messages.
    virtual QString describe() const = 0;
    virtual QString environmentId() const = 0;

    // Whether this writer may deliver now: on SQLite always (one writer per file); on
    // PostgreSQL it holds the environment's outbox lock, taken here when it is free, so
    // one process at a time delivers and the order a consumer sees holds.
    virtual bool mayDeliver() = 0;

    // When the environment was archived (a lab reset: its chain is gone, nothing more goes
    // out from it), else empty.
    virtual QString archivedAt() = 0;

    // Up to `limit` rows at or below `safeHeight`, in delivery order (by block; within one,
    // Transfers by log index, then rows that name no log by id). A row whose payload cannot
    // be rendered (its log deleted by hand) ends the list and comes back as `orphan`: rows
    // after it wait their turn.
    virtual QList<OutboxRow> next(std::uint64_t safeHeight, int limit,
                                  std::optional<OutboxRow>* orphan) = 0;

    // After the sink confirmed them, in one transaction (conditional: a row a rollback
    // removed meanwhile stays removed).
    virtual void markDelivered(const QList<OutboxRow>& rows) = 0;
    virtual void markFailed(const OutboxRow& row, const QString& error) = 0;
    // Bookkeeping of a batch the sink asked to be retried.
    virtual void markRetry(const QList<OutboxRow>& rows, const QString& error) = 0;

    // Rows at or below `safeHeight` still waiting (not delivered, not refused for good).
    virtual qint64 pendingAtOrBelow(std::uint64_t safeHeight) = 0;
};

} // namespace forkscope::outbox
