#include "BranchReasonText.h"
#include "indexer/ReorgReason.h"

namespace forkscope::forktree {

std::optional<BranchReason> branchReasonFromText(const QString& reason)
{
    namespace r = indexer::reorg_reason;
    if (reason == r::kHashMismatch)
        return BranchReason::HashMismatch;
    if (reason == r::kParentMismatch)
        return BranchReason::ParentMismatch;
    if (reason == r::kAbsence)
        return BranchReason::Absence;
    if (reason == r::kRepair)
        return BranchReason::Repair;
    return std::nullopt;
}

} // namespace forkscope::forktree
