#pragma once

#include "CheckpointReport.h"

namespace forkscope::report {

// Keeps at most `maxPoints` of a series sorted by x, evenly spaced by index, always with
// the first and the last point (a cursor or a running total keeps its shape and its end).
QList<SeriesPoint> downsampleEvenly(const QList<SeriesPoint>& points, int maxPoints);

// Merges neighbouring points into at most `maxPoints` buckets whose y is the sum of the
// merged y values and whose x is the first merged x (counts per block stay totals).
QList<SeriesPoint> downsampleBySum(const QList<SeriesPoint>& points, int maxPoints);

} // namespace forkscope::report
