#pragma once

#include "report/CheckpointReport.h"

#include <QString>

namespace forkscope::ui {

// A printable checkpoint report (A4 PDF) a team lead reads in a minute: a first page with
// the verdict, completeness and the environment at a glance in words and human units; then
// node health, the reorgs, the checkpoints with their export-time verification, the outbox
// and backfill, and the technical identifiers last. Every chart is drawn from the report's
// own data (ReportCharts). All text is real text (selectable, searchable with pdftotext).
// Needs a QApplication; works on the offscreen platform.
class ReportPdfWriter
{
public:
    // The file appears complete or not at all (written to a temporary file, then renamed).
    // Throws report::ReportError.
    static void write(const report::CheckpointReport& report, const QString& path);
};

} // namespace forkscope::ui
