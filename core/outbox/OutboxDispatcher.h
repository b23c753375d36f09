#pragma once

#include "OutboxSink.h"

#include <QString>
#include <cstdint>

namespace forkscope::store {
class Database;
}

namespace forkscope::outbox {

struct RoundResult
{
    int delivered = 0;
    int failed = 0;        // permanently refused this round
    bool blocked = false;  // a row must be retried: later rows wait (order is kept)
    bool archived = false; // the environment is archived: nothing more goes out from it
    QString lastError;
};

// Delivers outbox rows at or below the safe height, in (block_number, id) order, at most
// 500 per round (seed 000's query). delivered_at is written only after the sink confirmed,
// so a crash between the two re-sends that row once more with the same Idempotency-Key:
// delivery is at-least-once, exactly-once for a sink that honours the key. A row that must
// be retried stops the round, so nothing overtakes it. Runs on the dispatcher's own thread
// with its own connection.
class OutboxDispatcher
{
public:
    OutboxDispatcher(store::Database& db, QString environmentId, std::uint64_t chainId,
                     OutboxSink& sink)
        : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId), m_sink(sink)
    {
    }

    // Delivers nothing from an archived environment (its chain was reset: its events are
    // no more real than reorged-out ones) and says so in RoundResult::archived/lastError.
    RoundResult deliverRound(std::uint64_t safeHeight, int limit = 500);

private:
    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
    OutboxSink& m_sink;
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
