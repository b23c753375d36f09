#include "BloomBitsCache.h"

namespace forkscope::chain {

bool BloomBitsCache::mayContain(const LogsBloom& bloom, const LogEntry& log)
{
    if (!bloom::mayContain(bloom, bitsOf(log.address)))
        return false;
    for (const Hash32& t : log.topics)
        if (!bloom::mayContain(bloom, bitsOf(t)))
            return false;
    return true;
}

} // namespace forkscope::chain
