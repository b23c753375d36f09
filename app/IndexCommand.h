#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope index ...`: the headless indexer (see docs/cli.md, "forkscope index").
int runIndexCommand(const QStringList& arguments);

} // namespace forkscope::app
