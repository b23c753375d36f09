#pragma once

#include "IndexerConfig.h"

#include <QString>
#include <chrono>
#include <functional>

namespace forkscope::indexer {

struct SharedBackfillResult
{
    qint64 chainId = 0;    // the node's
    qint64 target = 0;     // the last block planned (head - confirmations at start)
    qint64 checkpoint = 0; // where the shared checkpoint stood when this process ended
    qint64 rangesDone = 0; // ranges this process finished
    qint64 blocks = 0;     // blocks it stored
    qint64 logs = 0;       // logs it stored
    qint64 takeovers = 0;  // ranges it took over from a process gone or past its lease
    qint64 lostRanges = 0; // ranges taken from it (its rows for them rolled back)
    bool stopped = false;  // the stop token ended the run early
    bool started = false;  // the node answered and the environment was opened
};

// One of several indexer processes backfilling one environment into a shared PostgreSQL
// database (`forkscope index --db postgresql://... --exit-when-synced`). Each
// claims the lowest free range (coord::BackfillClaims), fetches it through the same
// LogFetcher and receiver checks as the SQLite indexer (linked headers, every log in range,
// from an indexed contract, with its header's hash), writes blocks and logs with COPY, and
// marks the range done in that same transaction. The checkpoint then moves across the
// finished, hash-chained prefix (coord::PrefixCheckpoint). A process killed mid-range
// loses its lease and another finishes the range; rows are never written twice.
//
// Each Transfer gets its outbox row in the same transaction; delivery is
// outbox::SharedOutboxDelivery's. What this does not do yet: follow the head (and so
// decide reorgs), and balances, on PostgreSQL. The checkpoint's chaining stops below any range
// fetched from another branch, so a reorg during the backfill stalls it loudly instead of mixing
// branches.
class SharedBackfill
{
public:
    struct Options
    {
        IndexerConfig indexer; // dbPath is the postgresql:// URL; batchSize is the range size
        QString owner;         // this process's name in backfill_ranges.owner
        std::chrono::milliseconds lease{30000};
        // Called after each range this process stores and while it waits for ranges others
        // hold, with the node's chain id: the outbox's delivery pass, so rows at or below
        // the checkpoint go out while the backfill is still running.
        std::function<void(qint64 chainId)> betweenRanges;
    };

    explicit SharedBackfill(Options options);

    // Blocks until every range up to the target is done by some process, or the stop token
    // is set. `say` gets one line per finished or lost range. Throws on what must stop the
    // process: a store, node or coordination error, with one line saying what to do.
    SharedBackfillResult run(const std::function<void(const QString&)>& say);

private:
    Options m_options;
};

} // namespace forkscope::indexer
