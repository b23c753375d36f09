#pragma once

#include <qcustomplot.h>

namespace forkscope::ui {

// Ticks for an axis of whole numbers (heights, counts, depths): steps of 1, 2, 5, 10, 20,
// 50... and labels without decimals, so a chart of blocks never reads 0.2 or 2.5.
class WholeNumberTicker : public QCPAxisTicker
{
public:
    WholeNumberTicker();
    // The step QCPAxisTicker would take, made whole: at least 1, and 1, 2 or 5 times a
    // power of ten.
    static double wholeStep(double step);

protected:
    double getTickStep(const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;
};

} // namespace forkscope::ui
