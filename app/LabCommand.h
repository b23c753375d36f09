#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope lab reset ...`: reset the anvil devnet, archive the environment(s) of the old
// chain and open a new one (see docs/cli.md, "forkscope lab reset").
int runLabCommand(const QStringList& arguments);

} // namespace forkscope::app
