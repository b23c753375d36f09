#pragma once

#include "lab/run/LabRunResult.h"

#include <QString>

namespace forkscope::ui {

// `forkscope lab run`'s PDF: the verdict first, the run's setup, each audit with its counts
// by kind, the first findings, and the timeline, in the checkpoint report's page flow and
// fonts (real text, searchable). Needs a QApplication; works on the offscreen platform.
class LabRunPdfWriter
{
public:
    // The file appears complete or not at all. Throws report::ReportError.
    static void write(const lab::LabRunResult& run, const QString& path);
};

} // namespace forkscope::ui
