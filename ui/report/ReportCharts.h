#pragma once

#include "report/CheckpointReport.h"

#include <QImage>
#include <QList>
#include <QSize>

namespace forkscope::ui {

// The report's charts drawn from its own database series with an offscreen QCustomPlot,
// for exports made without the app's live panels (the command line). Needs a
// QApplication (QCustomPlot is a widget); works on the offscreen platform.
class ReportCharts
{
public:
    enum Chart { Cursor, Reorgs, Outbox, Count };

    // Count images: indexed block height over block time; reorg depth bars by reason;
    // outbox rows delivered over time (or, with none delivered, pending rows by block).
    // `size` is in logical pixels (what the fonts are laid out for); the images carry
    // `scale` times as many pixels so they stay sharp when printed.
    static QList<QImage> render(const report::CheckpointReport& report,
                                const QSize& size = QSize(760, 330), double scale = 2.0);
    static QString title(Chart chart);
};

} // namespace forkscope::ui
