#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope archive-contract --db FILE|URL --env ID --contract ADDR [--abi FILE]`: takes one
// contract out of an environment's contract set in one transaction, its rows kept, readable,
// under an archived environment of their own (docs/sources.md, "Archiving a contract").
int runArchiveCommand(const QStringList& arguments);

} // namespace forkscope::app
