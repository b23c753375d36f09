#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope audit --target FILE|URL (--query SQL | --preset ponder|subsquid) --rpc URL
// --contract ADDR ...`: another indexer's Transfer table against the chain (docs/audit.md).
// Exit 0 when clean, 1 on any finding, 2 when the audit could not run (usage, a target or
// query that cannot be read, a value that does not parse, a node that cannot be the
// reference).
int runAuditCommand(const QStringList& arguments);

} // namespace forkscope::app
