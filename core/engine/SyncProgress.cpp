#include "SyncProgress.h"

#include <cmath>

namespace forkscope::engine {

std::optional<double> etaSeconds(quint64 lagBlocks, double blocksPerSecond)
{
    if (lagBlocks == 0 || !(blocksPerSecond > 0) || !std::isfinite(blocksPerSecond))
        return std::nullopt;
    return double(lagBlocks) / blocksPerSecond;
}

QString humanDuration(double seconds)
{
    if (!std::isfinite(seconds) || seconds < 0)
        return QStringLiteral("unknown");
    if (seconds < 10)
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
    const qint64 s = qint64(std::llround(seconds));
    if (s < 60)
        return QStringLiteral("%1 s").arg(s);
    if (s < 3600)
        return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
    if (s < 86400)
        return QStringLiteral("%1 h %2 min")
            .arg(s / 3600)
            .arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1 d %2 h").arg(s / 86400).arg((s % 86400) / 3600);
}

} // namespace forkscope::engine
