#pragma once

#include <QtGlobal>
#include <chrono>
#include <deque>
#include <tuple>

namespace forkscope::engine {

// The indexer's rates (events and blocks a second) over the last kWindow of its running
// counts, not the last second: blocks arrive one at a time, and a one-second window reads
// 0 events/s or twice the rate depending on where they fall. Pure bookkeeping: the caller
// passes the time.
class RateWindow
{
public:
    static constexpr std::chrono::milliseconds kWindow{10000};
    static constexpr std::size_t kMaxSamples = 256; // bounded however often it is fed

    // The counts at `nowMs` (steady clock); counters that went back (a new indexer) start
    // the window again.
    void add(qint64 nowMs, qint64 events, qint64 blocks);
    void reset() { m_samples.clear(); }
    double eventsPerSecond() const;
    double blocksPerSecond() const;

private:
    double rate(int which) const;
    std::deque<std::tuple<qint64, qint64, qint64>> m_samples; // (ms, events, blocks)
};

} // namespace forkscope::engine
