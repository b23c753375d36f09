#pragma once

#include "concurrency/StopToken.h"

#include <QString>
#include <algorithm>
#include <chrono>
#include <functional>

namespace forkscope::indexer {

// How long a shared index's process waits after the node's `streak`-th unavailability in a
// row: 0.2 s doubling, at most 30 s, as the SQLite indexer backs off.
inline std::chrono::milliseconds nodeBackoff(int streak)
{
    return std::chrono::milliseconds(std::min<qint64>(30'000, 100LL << std::clamp(streak, 1, 9)));
}

// Runs `attempt` until it returns without an RpcException (the node unreachable, timed out,
// failing over HTTP, answering with a JSON-RPC error or with a reply that does not parse),
// saying what it waits for and backing off between tries. Anything else `attempt` throws
// goes to the caller. False when asked to stop first.
//
// A node that is down or failing says nothing about the chain or the index, so a process
// that meets one waits for it instead of exiting, as the SQLite indexer does (it retries
// every RpcException, loudly): an outage or a provider's burst of internal errors ends
// with the sync going on, not with a process to start again by hand.
bool waitForNode(const std::function<void()>& attempt, const QString& what,
                 const std::function<void(const QString&)>& say,
                 const concurrency::StopTokenPtr& stop);

} // namespace forkscope::indexer
