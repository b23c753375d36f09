#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope lab run`: a foreign indexer put through a named scenario in the lab, audited
// after each step (docs/lab-run.md). Exit 0 when every audit is clean, 1 when one found
// something or the run stopped early, 2 on bad arguments or a lab that could not start.
int runLabRunCommand(const QStringList& arguments);

} // namespace forkscope::app
