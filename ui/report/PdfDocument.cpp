#include "PdfDocument.h"

#include "report/ReportError.h"

#include <QSaveFile>

namespace forkscope::ui::pdf {

using report::ReportError;

void writeDocument(const QString& path, const DocumentInfo& info,
                   const std::function<void(Flow&)>& fill)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw ReportError(QStringLiteral("cannot write %1: %2; check that the directory exists "
                                         "and is writable")
                              .arg(path, file.errorString()));
    {
        QPdfWriter writer(&file);
        writer.setResolution(kDpi);
        writer.setPageSize(QPageSize(QPageSize::A4));
        writer.setPageMargins(QMarginsF(15, 15, 15, 12), QPageLayout::Millimeter);
        writer.setTitle(info.title);
        if (!info.creator.isEmpty())
            writer.setCreator(info.creator);
        QPainter painter;
        if (!painter.begin(&writer))
            throw ReportError(QStringLiteral("cannot start a PDF at %1").arg(path));
        Flow flow(writer, painter, info.footer);
        fill(flow);
        flow.finish();
        if (!painter.end())
            throw ReportError(QStringLiteral("could not finish the PDF at %1").arg(path));
    }
    if (!file.commit())
        throw ReportError(QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
}

} // namespace forkscope::ui::pdf
