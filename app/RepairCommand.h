#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope repair --db FILE --env ID --rpc URL --from N [--abi FILE]`: rolls the
// environment back to block N - 1 in one transaction (recorded as a reorg with reason
// "repair") and indexes again up to the node's head (docs/verify-and-repair.md).
int runRepairCommand(const QStringList& arguments);

} // namespace forkscope::app
