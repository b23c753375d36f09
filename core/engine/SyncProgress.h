#pragma once

#include <QString>
#include <optional>

namespace forkscope::engine {

// Pure rules behind the cursor-lag panel's text, kept apart so they can be tested.

// Seconds until the checkpoint reaches the head at the current commit rate; nullopt when
// not behind, or when nothing is being committed (an ETA from no progress is a guess, and
// the panel says "unknown" rather than show one).
std::optional<double> etaSeconds(quint64 lagBlocks, double blocksPerSecond);

// "0.4 s", "42 s", "3 min 05 s", "2 h 10 min": for ETA, freshness and ages.
QString humanDuration(double seconds);

} // namespace forkscope::engine
