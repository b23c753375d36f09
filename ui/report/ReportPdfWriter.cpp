#include "ReportPdfWriter.h"
#include "Palette.h"
#include "PdfDocument.h"
#include "ReportCharts.h"
#include "ReportPdfSections.h"
#include "report/ReportError.h"
#include "widgets/LocalTime.h"

#include <QFontMetricsF>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QTextOption>

namespace forkscope::ui {

using namespace forkscope::report;

void ReportPdfWriter::write(const CheckpointReport& report, const QString& path)
{
    // Every chart is drawn from the report's own data: the database's whole history of this
    // environment, and node health as the app polled it since the environment was created
    // (never a grab of a live panel, which may still show the previous environment).
    const QList<QImage> charts = ReportCharts::render(report);

    pdf::writeDocument(
        path,
        {QStringLiteral("Forkscope report: %1").arg(report.environment.id), report.generator,
         QStringLiteral("Forkscope report · %1 · exported %2")
             .arg(report.environment.id, LocalTime::format(report.generatedAt))},
        [&](pdf::Flow& flow) {
            pdfsections::summary(flow, report, charts.value(ReportCharts::Cursor));
            flow.newPage();
            pdfsections::nodeHealth(flow, report, charts.value(ReportCharts::NodeHealth));
            pdfsections::reorgs(flow, report, charts.value(ReportCharts::Reorgs));
            pdfsections::forkTree(flow, report);
            pdfsections::checkpoints(flow, report);
            pdfsections::outboxAndBackfill(flow, report, charts.value(ReportCharts::Outbox));
            pdfsections::technicalDetails(flow, report);
        });
}

} // namespace forkscope::ui
