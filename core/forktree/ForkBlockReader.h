#pragma once

#include "ForkBlockRows.h"

#include <QString>
#include <optional>

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::forktree {

// What a click on the block `hash` shows, read through the contract's surface on either store
// in one read snapshot. A canonical block (`blocks`): its logs (a Transfer as a Transfer row,
// any other log as a Log row), its delivered outbox rows, and the retractions enqueued at its
// height. An orphaned block (`orphaned_blocks`, the newest rollback that removed it): the
// Transfers that rollback removed from it, each with the diff view's answer to "back in the
// re-indexed chain" (engine/ReindexMatch.h), its rows a consumer had received, and their
// retractions. At most `limit` rows, `truncated` when there were more. `numberHint`, when
// known, is the block's number: without it the block is looked for by its hash alone,
// which reads every stored block. nullopt: no such block in the environment.
std::optional<ForkBlockRows> readForkBlock(store::ContractReader& reader,
                                           const QString& environmentId, const chain::Hash32& hash,
                                           std::optional<quint64> numberHint = std::nullopt,
                                           int limit = 5000);

} // namespace forkscope::forktree
