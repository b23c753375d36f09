#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>

namespace forkscope::outbox {

// The height up to which outbox rows may go out: the confirmation policy applied to the
// node's head, capped by the ready-ratio gate. No head, or no gate yet (no healthy node):
// nothing counts as confirmed.
inline std::optional<std::uint64_t> safeHeight(std::optional<std::uint64_t> head,
                                               std::uint64_t confirmations,
                                               std::optional<std::uint64_t> readyHeight)
{
    if (!head || *head < confirmations || !readyHeight)
        return std::nullopt;
    return std::min(*head - confirmations, *readyHeight);
}

} // namespace forkscope::outbox
