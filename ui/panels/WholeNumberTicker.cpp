#include "WholeNumberTicker.h"

#include <cmath>

namespace forkscope::ui {

WholeNumberTicker::WholeNumberTicker()
{
    setTickCount(4);
}

double WholeNumberTicker::wholeStep(double step)
{
    if (!(step > 1))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(step)));
    const double mantissa = step / magnitude;
    // 2.5 is whole from 25 on; rounding it up to 5 halved the ticks (one label on an axis).
    const double nice = mantissa <= 1                        ? 1
                        : mantissa <= 2                      ? 2
                        : mantissa <= 2.5 && magnitude >= 10 ? 2.5
                        : mantissa <= 5                      ? 5
                                                             : 10;
    return nice * magnitude;
}

double WholeNumberTicker::getTickStep(const QCPRange& range)
{
    return wholeStep(QCPAxisTicker::getTickStep(range));
}

int WholeNumberTicker::getSubTickCount(double tickStep)
{
    // Sub-ticks on whole numbers only: 4 between 5s, 1 between 2s, none between 1s.
    const double mantissa = tickStep / std::pow(10.0, std::floor(std::log10(tickStep)));
    if (tickStep <= 1)
        return 0;
    if (std::abs(mantissa - 2) < 1e-9)
        return tickStep >= 10 ? 3 : 1;
    if (std::abs(mantissa - 5) < 1e-9 || std::abs(mantissa - 2.5) < 1e-9)
        return 4;
    return tickStep >= 10 ? 4 : 0;
}

QString WholeNumberTicker::getTickLabel(double tick, const QLocale& locale, QChar, int)
{
    return locale.toString(qint64(std::llround(tick)));
}

} // namespace forkscope::ui
