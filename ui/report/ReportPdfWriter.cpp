#include "ReportPdfWriter.h"
#include "Palette.h"
#include "PdfFlow.h"
#include "ReportCharts.h"
#include "ReportPdfSections.h"
#include "report/ReportError.h"
#include "widgets/LocalTime.h"

#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextOption>

namespace forkscope::ui {

using namespace forkscope::report;

void ReportPdfWriter::write(const CheckpointReport& report, const QString& path)
{
    // Every chart is drawn from the report's own data: the database's whole history of this
    // environment, and node health as the app polled it since the environment was created
    // (never a grab of a live panel, which may still show the previous environment).
    const QList<QImage> charts = ReportCharts::render(report);

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw ReportError(QStringLiteral("cannot write %1: %2; check that the directory exists "
                                         "and is writable")
                              .arg(path, file.errorString()));
    {
        QPdfWriter writer(&file);
        writer.setResolution(pdf::kDpi);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(15, 15, 15, 12), QPageLayout::Millimeter);
        writer.setTitle(QStringLiteral("Forkscope report: %1").arg(report.environment.id));
        writer.setCreator(report.generator);
        QPainter painter;
        if (!painter.begin(&writer))
            throw ReportError(QStringLiteral("cannot start a PDF at %1").arg(path));
        pdf::Flow flow(writer, painter,
                       QStringLiteral("Forkscope report · %1 · exported %2")
                           .arg(report.environment.id, LocalTime::format(report.generatedAt)));
        pdfsections::summary(flow, report, charts.value(ReportCharts::Cursor));
        flow.newPage();
        pdfsections::nodeHealth(flow, report, charts.value(ReportCharts::NodeHealth));
        pdfsections::reorgs(flow, report, charts.value(ReportCharts::Reorgs));
        pdfsections::checkpoints(flow, report);
        pdfsections::outboxAndBackfill(flow, report, charts.value(ReportCharts::Outbox));
        pdfsections::technicalDetails(flow, report);
        flow.finish();
        if (!painter.end())
            throw ReportError(QStringLiteral("could not finish the PDF at %1").arg(path));
    }
    if (!file.commit())
        throw ReportError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
}

} // namespace forkscope::ui
