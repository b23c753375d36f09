#pragma once

#include "indexer/CompletenessAlert.h"

#include <QList>
#include <QString>

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::coord {

// Records blocks `from`..`to` as a failed range with `error`, in its own transaction under
// the planners' lock: the head follower's way to stop at a block that cannot be proven
// complete (a backfill's range fails in place). Nothing is recorded if a range already
// starts there (planned meanwhile: the backfill that planned it meets the block itself).
void recordFailedRange(store::pg::PgConnection& db, const QString& environmentId, qint64 chainId,
                       qint64 from, qint64 to, const QString& error);

// A shared index's failed backfill ranges, as the completeness alerts a file keeps in
// completeness_alerts. A range fails after 5 attempts of its own (a block on the node's
// result cap, logs the header's bloom proves hidden, an error the node keeps answering),
// and the checkpoint stops below it until `forkscope index` is started again with the node
// fixed: the chain above is not indexed, and nothing says so but the processes' last lines.
// The app and the report therefore show each one as "data incomplete", never green over a
// gap. `node` is the environment's recorded node (each process may use its own; the range's
// error names the one that failed it). Open while the range is failed: a run that stores it
// resolves it.
QList<indexer::CompletenessAlert> failedRangeAlerts(store::pg::PgConnection& db,
                                                    const QString& environmentId, quint64 chainId,
                                                    const QString& node);

} // namespace forkscope::coord
