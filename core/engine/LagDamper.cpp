#include "LagDamper.h"

#include <algorithm>

namespace forkscope::engine {

std::optional<quint64> LagDamper::hold(std::optional<quint64> lag, qint64 nowMs)
{
    if (!lag) {
        m_samples.clear();
        return std::nullopt;
    }
    m_samples.emplace_back(nowMs, *lag);
    // Keep one sample at or before the window's start: the lag that was in force then.
    while (m_samples.size() > 1 && m_samples[1].first <= nowMs - kHold.count())
        m_samples.pop_front();
    while (m_samples.size() > kMaxSamples)
        m_samples.pop_front();
    quint64 held = m_samples.back().second;
    for (const auto& [at, value] : m_samples)
        held = std::min(held, value);
    return held;
}

} // namespace forkscope::engine
