#pragma once

#include "ForkTreeWindow.h"

#include <QString>
#include <optional>

namespace forkscope::forktree {

// A rollback's reason as reorg_events stores it (indexer/ReorgReason.h) as a branch's reason;
// nullopt for a text no rollback writes.
std::optional<BranchReason> branchReasonFromText(const QString& reason);

} // namespace forkscope::forktree
