#pragma once

#include <QList>
#include <QString>
#include <cstdint>

namespace forkscope::store {
class Database;
}

namespace forkscope::indexer {

struct BackfillRange
{
    std::uint64_t fromBlock = 0;
    std::uint64_t toBlock = 0;
    QString status; // pending / running / done / failed
    int attempts = 0;
    QString lastError;
};

// backfill_ranges: the historical part of a sync, cut into ranges fetched in parallel and
// committed in block order. A failing range is retried and counted; one that keeps failing
// is marked failed (and shown) but never skipped: the checkpoint cannot pass it.
class BackfillLedger
{
public:
    BackfillLedger(store::Database& db, QString environmentId, std::uint64_t chainId)
        : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId)
    {
    }

    // After a restart nothing is running any more.
    void resetRunning();
    void markRunning(const QList<std::pair<std::uint64_t, std::uint64_t>>& ranges);
    // Inside the batch's commit transaction.
    void markDone(std::uint64_t from, std::uint64_t to, int attempts);
    // Inside a commit transaction: every range the checkpoint has now passed is done,
    // whichever way its blocks were finally fetched (a failed backfill range may be
    // committed later as part of head-following).
    void closeCovered(std::uint64_t checkpoint);
    void markFailure(std::uint64_t from, std::uint64_t to, int attempts, const QString& error,
                     bool givenUp);
    QList<BackfillRange> ranges();

private:
    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
};

} // namespace forkscope::indexer
