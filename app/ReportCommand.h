#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope report ...`: one environment's checkpoint report as JSON, CSV or PDF (see
// docs/cli.md, "forkscope report"). It creates its own application object (a PDF needs a
// QApplication for fonts and charts, JSON and CSV do not), so main() calls it before
// creating one.
int runReportCommand(int& argc, char** argv, const QStringList& arguments);

} // namespace forkscope::app
