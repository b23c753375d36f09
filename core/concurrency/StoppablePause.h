#pragma once

#include "StopToken.h"

#include <chrono>

namespace forkscope::concurrency {

// Waits up to `duration` on a command's own thread (the headless shared indexer), in 25 ms
// steps that also deliver this thread's pending events (a Unix signal watcher's), and ends
// early once `stop` is set. Not for a worker thread that receives commands by queued calls:
// those wait in their event loop instead.
void pauseUnlessStopped(std::chrono::milliseconds duration, const StopTokenPtr& stop);

} // namespace forkscope::concurrency
