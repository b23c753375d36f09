#include "ReportPdf.h"
#include "report/CheckpointReport.h"
#include "report/LabRunPdfWriter.h"
#include "report/ReportPdfWriter.h"

#include <QApplication>
#include <cstdio>

namespace forkscope::app {

namespace {

// Qt's own platform chatter on a headless machine ("QStandardPaths: XDG_RUNTIME_DIR not
// set", font notes) would break the one-line stderr contract; everything the user needs
// to know is printed by the command itself. Critical and fatal messages still go out.
void quietQtMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::fprintf(stderr, "%s\n", qPrintable(message));
}

} // namespace

QString pdfUnavailableReason()
{
    return {};
}

std::unique_ptr<QCoreApplication> makePdfApplication(int& argc, char** argv)
{
    // Never a screen: unless the user picked a platform, use the offscreen one, so the
    // export works over ssh, in CI and with a stale DISPLAY (where xcb would abort).
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qInstallMessageHandler(quietQtMessages);
    return std::make_unique<QApplication>(argc, argv);
}

void writePdfReport(const report::CheckpointReport& report, const QString& path)
{
    ui::ReportPdfWriter::write(report, path);
}

void writeLabRunPdf(const lab::LabRunResult& run, const QString& path)
{
    ui::LabRunPdfWriter::write(run, path);
}

} // namespace forkscope::app
