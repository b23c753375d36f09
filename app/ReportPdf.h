#pragma once

#include <QString>
#include <memory>

class QCoreApplication;

namespace forkscope::report {
class CheckpointReport;
}
namespace forkscope::lab {
struct LabRunResult;
}

namespace forkscope::app {

// The PDF side of `forkscope report`. The writer lives in forkscope_ui (QCustomPlot charts
// on Qt's PDF engine), so a headless build (FORKSCOPE_BUILD_GUI=OFF) links NoGui.cpp instead
// of ReportPdf.cpp and refuses --format pdf while parsing.

// Empty when this build writes PDFs, else why not (one line, for the usage error).
QString pdfUnavailableReason();

// The application object a PDF needs (fonts and widgets): a QApplication on the offscreen
// platform unless the user chose one, with Qt's platform chatter silenced.
std::unique_ptr<QCoreApplication> makePdfApplication(int& argc, char** argv);

// Throws report::ReportError when the file cannot be written.
void writePdfReport(const report::CheckpointReport& report, const QString& path);
// `forkscope lab run --pdf`; the same.
void writeLabRunPdf(const lab::LabRunResult& run, const QString& path);

} // namespace forkscope::app
