#pragma once

#include "DbSummary.h"

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::engine {

// The DbSummary of one environment of a shared PostgreSQL index, read in one snapshot:
// the environments, the checkpoint, the last 200 reorgs and the outbox counts at or below
// the checkpoint (what the views show), and each failed backfill range as an open
// completeness alert (coord/FailedRanges.h: the checkpoint is stuck below it). A shared
// index has no policy version. The delivery rate is the caller's to fill in: it needs two
// readings.
DbSummary readSharedSummary(store::pg::PgConnection& db, const QString& environmentId);

} // namespace forkscope::engine
