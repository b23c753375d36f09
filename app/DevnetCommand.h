#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope devnet [--port P] [--nodes N]`: runs a managed anvil until interrupted.
int runDevnetCommand(const QStringList& arguments);

} // namespace forkscope::app
