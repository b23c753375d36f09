#include "ForkFinder.h"
#include "IndexerErrors.h"
#include "rpc/EthClient.h"

namespace forkscope::indexer {

ForkPoint ForkFinder::find(const Checkpoint& cp, std::uint64_t maxDepth,
                           std::optional<std::uint64_t> nodeHead)
{
    // A reorg of depth d replaces cp-d+1..cp, so the fork is at cp-d >= cp-maxDepth.
    const std::uint64_t lowest = cp.number >= maxDepth ? cp.number - maxDepth : 0;
    constexpr std::uint64_t kChunk = 16;
    std::uint64_t top = nodeHead ? std::min(cp.number, *nodeHead) : cp.number;
    if (top < lowest)
        throw DeepReorgError(cp.number, maxDepth);
    while (true) {
        const std::uint64_t bottom = top >= lowest + kChunk - 1 ? top - (kChunk - 1) : lowest;
        const auto headers = m_eth.blocksByNumber(bottom, top);
        for (std::uint64_t n = top + 1; n-- > bottom;) {
            const auto stored = storedHash(n);
            if (!stored) // below the first indexed block: nothing of ours survives
                return ForkPoint{std::nullopt, {}};
            const auto& header = headers.at(qsizetype(n - bottom));
            if (!header)
                throw NodeBehindError(QStringLiteral("node answered null for block %1 while "
                                                     "searching for the fork point; waiting")
                                          .arg(n));
            if (header->hash == *stored)
                return ForkPoint{n, *stored};
        }
        if (bottom == lowest)
            break;
        top = bottom - 1;
    }
    throw DeepReorgError(cp.number, maxDepth);
}

} // namespace forkscope::indexer
