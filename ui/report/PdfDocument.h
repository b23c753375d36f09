#pragma once

#include "PdfFlow.h"

#include <QString>
#include <functional>

namespace forkscope::ui::pdf {

// What every Forkscope PDF says about itself, and the footer on each of its pages.
struct DocumentInfo
{
    QString title;
    QString creator;
    QString footer;
};

// Writes an A4 PDF at `path` in one go (QSaveFile: a failed export leaves no half file), with
// `fill` drawing its pages through a Flow. Throws report::ReportError saying what to check.
void writeDocument(const QString& path, const DocumentInfo& info,
                   const std::function<void(Flow&)>& fill);

} // namespace forkscope::ui::pdf
