#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope index ...`: the headless indexer (see README "forkscope index").
int runIndexCommand(const QStringList& arguments);

} // namespace forkscope::app
