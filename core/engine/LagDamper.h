#pragma once

#include <QtGlobal>
#include <chrono>
#include <deque>
#include <optional>
#include <utility>

namespace forkscope::engine {

// Damps the lag the window shows, as Bitcoin-Qt damps "synchronizing": a state changes only
// when its condition has held for a moment. The lag shown is the smallest seen over the
// last kHold, so a block that arrives a moment before the indexer's next poll does not
// flip "synced" to "syncing | lag 1 block | ETA 1.0 s" and back with every block, while an
// indexer that really falls behind shows it once it has been behind for kHold. Catching up
// shows at once. Pure bookkeeping: the caller passes the time.
class LagDamper
{
public:
    static constexpr std::chrono::milliseconds kHold{3000};
    static constexpr std::size_t kMaxSamples = 512; // bounded however often it is fed

    // Records this snapshot's lag at `nowMs` (steady clock) and returns the lag that has
    // held. An unknown lag is shown at once, and starts the history again.
    std::optional<quint64> hold(std::optional<quint64> lag, qint64 nowMs);
    void reset() { m_samples.clear(); }

private:
    std::deque<std::pair<qint64, quint64>> m_samples; // (ms, lag), oldest first
};

} // namespace forkscope::engine
