#pragma once

#include "report/CheckpointReport.h"

#include <QImage>
#include <QList>
#include <QString>

namespace forkscope::ui {

// A printable checkpoint report (A4 PDF): a title page with the invariant verdict, the
// charts, the checkpoint table with each export-time verification, the reorg history with
// its diffs, and the outbox and backfill summaries. All text is real text (selectable,
// searchable with pdftotext). Needs a QApplication; works on the offscreen platform.
class ReportPdfWriter
{
public:
    // liveCharts: the app's four live panels (cursor lag, reorgs, outbox, node health), in
    // that order; anything but four images means "render the charts from the report's
    // database series" (ReportCharts) instead. The file appears complete or not at all
    // (written to a temporary file, then renamed). Throws report::ReportError.
    static void write(const report::CheckpointReport& report, const QString& path,
                      const QList<QImage>& liveCharts = {});
};

} // namespace forkscope::ui
