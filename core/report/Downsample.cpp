#include "Downsample.h"

#include <algorithm>

namespace forkscope::report {

EvenRows evenRows(qint64 total, int maxPoints)
{
    if (maxPoints < 2 || total <= maxPoints)
        return {};
    return {maxPoints - 1, total - 1};
}

qint64 bucketBlocks(qint64 first, qint64 last, int maxPoints)
{
    const qint64 span = std::max<qint64>(1, last - first + 1);
    const qint64 buckets = std::max(1, maxPoints);
    return (span + buckets - 1) / buckets;
}

} // namespace forkscope::report
