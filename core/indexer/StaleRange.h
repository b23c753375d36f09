#pragma once

#include "coord/PrefixCheckpoint.h"

#include <QString>
#include <optional>

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::indexer {

struct ReopenedRange
{
    qint64 fromBlock = 0;
    qint64 toBlock = 0;
    qint64 rowsRemoved = 0;
};

// A shared backfill whose ranges are all done, with the checkpoint stopped below the last:
// the range just above the checkpoint was stored from another branch than the checkpoint's
// block (a reorg during the backfill, above the checkpoint), so its parent hash does not
// follow and the checkpoint can never cross it. In one transaction, under the planners'
// lock, its rows go (readers never saw them: the views stop at the checkpoint) and it is
// pending again, to be fetched from the node's chain. The caller must first have checked
// that the checkpoint's block is still the node's: a reorg below the checkpoint is the
// head follower's to roll back, recorded. nullopt when there is no such range (any more:
// another process may have reopened it).
std::optional<ReopenedRange> reopenRangeFromAnotherBranch(store::pg::PgConnection& db,
                                                          const QString& environmentId,
                                                          qint64 chainId,
                                                          const coord::SharedCheckpoint& cp);

} // namespace forkscope::indexer
