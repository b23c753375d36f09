#pragma once

#include <QtGlobal>
#include <algorithm>
#include <cstdint>

namespace forkscope::indexer {

// How much a backfill fetches ahead, bounded in logs rather than blocks. Fetched-ahead
// ranges are most of the indexer's memory (about 2.4 KiB per log in flight: reply body,
// parsed DOM, LogEntry), and a range's logs are fetched and parsed whole, so on a dense
// chain --batch-size blocks can be ten thousand logs and tens of MiB per fetch worker.
// Bounding both keeps peak RSS flat whatever the chain (bench/README.md, the 1M run).
namespace fetch_window {

// A range is also one commit, and each commit rewrites the B-tree pages it touches once
// (balance_store's pages, every index's right edge): twice the logs per commit wrote fewer
// pages per event, and the 100k sync's indexer CPU fell from 0.73-0.78 to 0.62-0.70 s.
// Ranges of 20,000 logs cost more than they saved (bench/README.md's history).
inline constexpr qint64 kMaxLogsPerRange = 10000;
inline constexpr qint64 kMaxLogsAhead = 32000;
// Before any range is seen, assume dense: two ranges ahead, not eight.
inline constexpr qint64 kUnknownLogsPerRange = kMaxLogsAhead / 2;

// Ranges in flight: as many as fit kMaxLogsAhead at the last range's size, at least two
// (one being committed, one arriving), at most two per worker.
inline int depth(qint64 logsPerRange, int workers)
{
    return int(std::clamp<qint64>(kMaxLogsAhead / std::max<qint64>(1, logsPerRange), 2,
                                  std::max(2, 2 * workers)));
}

// Blocks per range after one of `blocks` blocks held `logs` logs, starting from `current`
// (never above --batch-size). Re-planning discards what is in flight, so it changes only
// when the estimate is clearly off: below 3/4 or above 3/2 of the current size.
inline std::uint64_t rangeBlocks(std::uint64_t current, qint64 logs, qint64 blocks,
                                 std::uint64_t batchSize)
{
    const std::uint64_t cap = std::max<std::uint64_t>(1, batchSize);
    if (blocks <= 0)
        return std::min(current, cap);
    const std::uint64_t desired = std::clamp<std::uint64_t>(
        std::uint64_t(kMaxLogsPerRange * blocks / std::max<qint64>(1, logs)), 1, cap);
    if (desired * 4 < current * 3 || desired * 2 > current * 3)
        return desired;
    return std::min(current, cap);
}

} // namespace fetch_window
} // namespace forkscope::indexer
