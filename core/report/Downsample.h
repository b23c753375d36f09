#pragma once

#include <QtGlobal>

namespace forkscope::report {

// How a chart series is thinned in SQL, so that neither this process nor a PostgreSQL
// result ever holds more than about `maxPoints` rows of it (an environment may have
// millions of blocks and delivered events).

// Of `total` rows in order, numbered rn = 1, 2, ..., the rows to keep are those where
// ((rn - 1) * scale) % modulus < scale: with scale = maxPoints - 1 and modulus = total - 1,
// the first row of each of maxPoints equal spans, the first and the last row among them
// (floor((rn - 1) * scale / modulus) steps up exactly there). Every row when total <=
// maxPoints.
struct EvenRows
{
    qint64 scale = 1;
    qint64 modulus = 1;
};
EvenRows evenRows(qint64 total, int maxPoints);

// Blocks per bucket so that the blocks first..last fall into at most `maxPoints` buckets.
qint64 bucketBlocks(qint64 first, qint64 last, int maxPoints);

} // namespace forkscope::report
