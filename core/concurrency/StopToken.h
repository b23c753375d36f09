#pragma once

#include <atomic>
#include <memory>

namespace forkscope::concurrency {

// Asks a worker to stop, from any thread. Whatever the worker is blocked on (a node that
// answers in 10 s, a fetch that waits for a batch) checks the token and gives up within a
// few tens of milliseconds: stop, restart and quit never wait for the network.
class StopToken
{
public:
    void requestStop() noexcept { m_stop.store(true, std::memory_order_release); }
    bool stopRequested() const noexcept { return m_stop.load(std::memory_order_acquire); }

private:
    std::atomic<bool> m_stop{false};
};

using StopTokenPtr = std::shared_ptr<StopToken>;

} // namespace forkscope::concurrency
