#pragma once

#include "OutboxQueue.h"
#include "OutboxSink.h"
#include "RetryBackoff.h"
#include "concurrency/StopToken.h"

#include <QString>
#include <chrono>
#include <cstdint>

namespace forkscope::store {
class Database;
}

namespace forkscope::outbox {

struct RoundResult
{
    int delivered = 0;
    int failed = 0;         // permanently refused this round
    bool blocked = false;   // rows must be retried: later rows wait (order is kept)
    bool archived = false;  // the environment is archived: nothing more goes out from it
    bool notHolder = false; // another writer delivers this environment's outbox now
    int attempts = 0;       // deliver() calls this round
    // When blocked: how long to wait before the next round, from the sink's failure
    // streak (RetryBackoff); 0 otherwise.
    std::chrono::milliseconds retryAfter{0};
    QString lastError;
};

// Delivers outbox rows at or below the safe height, in delivery order (by block; within one,
// Transfers by log index, then rows naming no log by id), at most `limit` per round
// (docs/design.md, "The outbox"), in batches of up to the sink's maxBatch().
// A batch is marked delivered in one transaction, and only after the sink confirmed it,
// so a crash between the two re-sends at most that batch, with the same keys: delivery
// is at-least-once, exactly-once for a consumer that deduplicates on the event key. A
// batch that must be retried stops the round, so nothing overtakes it. A batch of more
// than one row that the sink refuses for good (4xx) is not blamed on all its rows: they
// go again one per deliver() call, so only the row the sink refuses is marked failed.
// Runs on the dispatcher's own thread with its own connection, on either store
// (OutboxQueue); with several writers only the one the queue lets deliver does.
class OutboxDispatcher
{
public:
    OutboxDispatcher(OutboxQueue& queue, OutboxSink& sink, RetryBackoff backoff = {})
        : m_queue(queue), m_sink(sink), m_backoff(backoff)
    {
    }
    // A round ends before its next batch once `stop` is requested (the rest stay pending).
    void setStopToken(concurrency::StopTokenPtr stop) { m_stop = std::move(stop); }

    // Delivers nothing from an archived environment (its chain was reset: its events are
    // no more real than reorged-out ones) and says so in RoundResult::archived/lastError.
    RoundResult deliverRound(std::uint64_t safeHeight, int limit = 500);

    // Consecutive attempts the sink answered with "retry"; any answer for good resets it.
    int failureStreak() const { return m_failureStreak; }

private:
    OutboxQueue& m_queue;
    OutboxSink& m_sink;
    RetryBackoff m_backoff;
    concurrency::StopTokenPtr m_stop;
    int m_failureStreak = 0;
};

struct OutboxCounts
{
    qint64 pending = 0;   // neither delivered nor refused
    qint64 delivered = 0; // delivered_at set
    qint64 failed = 0;    // refused for good (failed_at), never delivered
};
// The outbox of one environment by state: what the status bar, the panel and the report show.
OutboxCounts countRows(store::Database& db, const QString& environmentId, std::uint64_t chainId);

// Rows at or below the safe height still waiting (not delivered, not refused for good):
// what `--exit-when-synced` waits for when a sink is configured.
qint64 pendingAtOrBelow(store::Database& db, const QString& environmentId, std::uint64_t chainId,
                        std::uint64_t safeHeight);

} // namespace forkscope::outbox
