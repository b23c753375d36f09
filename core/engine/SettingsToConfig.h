#pragma once

#include "EngineConfig.h"
#include "config/AppSettings.h"

namespace forkscope::engine {

// What File > Settings means for the engine: the saved (already validated) settings laid
// over `base` (the embedded defaults, or what the command line chose). No endpoints means
// the managed anvil lab; the indexer policy, health and outbox settings apply to both.
EngineConfig configFromSettings(const config::AppSettings& settings, EngineConfig base);

} // namespace forkscope::engine
