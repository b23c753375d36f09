#include "Downsample.h"

namespace forkscope::report {

QList<SeriesPoint> downsampleEvenly(const QList<SeriesPoint>& points, int maxPoints)
{
    if (maxPoints < 2 || points.size() <= maxPoints)
        return points;
    QList<SeriesPoint> out;
    out.reserve(maxPoints);
    const double step = double(points.size() - 1) / double(maxPoints - 1);
    for (int i = 0; i < maxPoints; ++i)
        out.append(points.at(qsizetype(double(i) * step + 0.5)));
    out.last() = points.last();
    return out;
}

QList<SeriesPoint> downsampleBySum(const QList<SeriesPoint>& points, int maxPoints)
{
    if (maxPoints < 1 || points.size() <= maxPoints)
        return points;
    QList<SeriesPoint> out;
    out.reserve(maxPoints);
    const qsizetype per = (points.size() + maxPoints - 1) / maxPoints;
    for (qsizetype i = 0; i < points.size(); i += per) {
        SeriesPoint bucket{points.at(i).x, 0};
        for (qsizetype j = i; j < std::min(points.size(), i + per); ++j)
            bucket.y += points.at(j).y;
        out.append(bucket);
    }
    return out;
}

} // namespace forkscope::report
