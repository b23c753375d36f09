#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope verify --db FILE|URL --env ID --rpc URL [--from N] [--to M] [--receipts]
// [--abi FILE] [--balance-of]`: audits the stored data of one environment against a node
// (docs/verify-and-repair.md). Exit 0 when clean, 1 on a hole or a wrong balance (or a reorg
// not rolled back yet, or a run-time error), 2 for usage.
int runVerifyCommand(const QStringList& arguments);

} // namespace forkscope::app
