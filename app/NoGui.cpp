// What a headless build (FORKSCOPE_BUILD_GUI=OFF) links instead of GuiApp.cpp and
// ReportPdf.cpp: the desktop app and the PDF writer need forkscope_ui, which it lacks, so
// asking for either is one clear line instead of a missing feature found later.
#include "CommandLine.h"
#include "GuiApp.h"
#include "ReportPdf.h"

#include <QCoreApplication>
#include <cstdlib>

namespace forkscope::app {

int runGui(int&, char**)
{
    printError(QStringLiteral("this forkscope was built without the desktop app "
                              "(FORKSCOPE_BUILD_GUI=OFF); run one of its subcommands, see "
                              "`forkscope --help`"));
    return ExitUsage;
}

QString pdfUnavailableReason()
{
    return QStringLiteral("--format pdf needs the desktop build; this forkscope was built "
                          "without it (FORKSCOPE_BUILD_GUI=OFF): use json or csv");
}

// Unreachable: the report command refuses --format pdf while parsing.
std::unique_ptr<QCoreApplication> makePdfApplication(int&, char**)
{
    std::abort();
}

void writePdfReport(const report::CheckpointReport&, const QString&)
{
    std::abort();
}

// Unreachable: lab run refuses --pdf while parsing.
void writeLabRunPdf(const lab::LabRunResult&, const QString&)
{
    std::abort();
}

} // namespace forkscope::app
