#pragma once

#include "report/CheckpointReport.h"

#include <QImage>
#include <QList>
#include <QSize>

namespace forkscope::ui {

// The report's charts drawn from its own data with an offscreen QCustomPlot: the database's
// series, and node health as the app polled it for this environment (live exports). Needs a
// QApplication (QCustomPlot is a widget); works on the offscreen platform.
class ReportCharts
{
public:
    enum Chart { Cursor, Reorgs, Outbox, NodeHealth, Count };

    // Count images: indexed block height over block time; reorg depth bars by reason;
    // outbox rows delivered over time (or, with none delivered, pending rows by block); each
    // node's head over time. A chart with nothing to draw is a null image (the report says
    // so in words instead of an empty frame with an axis from 1970).
    // `size` is in logical pixels (what the fonts are laid out for); the images carry
    // `scale` times as many pixels so they stay sharp when printed.
    static QList<QImage> render(const report::CheckpointReport& report,
                                const QSize& size = QSize(760, 330), double scale = 2.0);
    static QString title(Chart chart);
    // The genesis block stands minutes apart from the blocks after it (anvil's genesis keeps
    // the time anvil started, across a lab reset): the cursor chart starts at block 1, so
    // its time axis is the environment's, and the report says so.
    static bool genesisApart(const report::CheckpointReport& report);
};

} // namespace forkscope::ui
