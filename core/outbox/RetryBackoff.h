#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>

namespace forkscope::outbox {

// How long the dispatcher waits before it tries the sink again, from the sink's failure
// streak: the number of consecutive attempts that must be retried (timeout, transport
// error, 5xx, I/O error). Any answer the sink gives for good, a delivery or a refusal,
// ends the streak. It depends on the sink's recent answers only, never on how often a
// row was tried before: one row that was unlucky must not slow every later delivery.
//
// The wait grows by `growth` per failure: first, 1.5 x first, 2.25 x first ... up to cap.
// Below 2, the expected wait a sink that fails at random costs per failure run stays
// bounded (at a 50% failure rate: 4 x first, 80 ms), whereas with doubling each step up
// to the cap adds `first` to it (250 ms in all from 20 ms to 30 s). A sink that
// stays down still backs off to the cap: 19 failures and about 90 s of waiting, then one
// attempt per 30 s. The first step is short because every row waits behind the failed one.
struct RetryBackoff
{
    std::chrono::milliseconds first{20};
    double growth = 1.5;
    std::chrono::milliseconds cap{30000};

    std::chrono::milliseconds delay(int failureStreak) const
    {
        if (failureStreak <= 0)
            return std::chrono::milliseconds(0);
        // Past 200 steps the cap has long been reached; the bound keeps pow finite.
        const double ms =
            double(first.count()) * std::pow(growth, std::min(failureStreak - 1, 200));
        return std::chrono::milliseconds(std::llround(std::min(ms, double(cap.count()))));
    }
};

} // namespace forkscope::outbox
