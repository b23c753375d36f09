#include "RateWindow.h"

#include <algorithm>

namespace forkscope::engine {

void RateWindow::add(qint64 nowMs, qint64 events, qint64 blocks)
{
    if (!m_samples.empty() &&
        (std::get<1>(m_samples.back()) > events || std::get<2>(m_samples.back()) > blocks))
        m_samples.clear();
    m_samples.emplace_back(nowMs, events, blocks);
    // Keep one sample at or before the window's start: the counts in force then.
    while (m_samples.size() > 1 && std::get<0>(m_samples[1]) <= nowMs - kWindow.count())
        m_samples.pop_front();
    while (m_samples.size() > kMaxSamples)
        m_samples.pop_front();
}

double RateWindow::rate(int which) const
{
    if (m_samples.size() < 2)
        return 0;
    const auto& [t0, e0, b0] = m_samples.front();
    const auto& [t1, e1, b1] = m_samples.back();
    // At least a second, so the first commit after a start is not a burst of thousands.
    const double seconds = double(std::max<qint64>(1000, t1 - t0)) / 1000.0;
    return std::max(0.0, double(which == 0 ? e1 - e0 : b1 - b0) / seconds);
}

double RateWindow::eventsPerSecond() const
{
    return rate(0);
}

double RateWindow::blocksPerSecond() const
{
    return rate(1);
}

} // namespace forkscope::engine
