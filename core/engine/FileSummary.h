#pragma once

#include "DbSummary.h"

#include <functional>

namespace forkscope::store {
class Database;
}

namespace forkscope::engine {

// The DbSummary of one environment of a SQLite file, read in one snapshot: the
// environments, the last 200 reorgs, the open completeness alerts, the checkpoint and the
// outbox counts all describe one commit. Read statement by statement, an indexer's commit
// between them paired a checkpoint with the outbox rows of the batch after it, a state the
// file never held. The delivery rate and the schema version are the caller's to fill in.
// `betweenReads` runs after the checkpoint is read, before the counts: a test commits there.
DbSummary readFileSummary(store::Database& db, const QString& environmentId, quint64 chainId,
                          const std::function<void()>& betweenReads = {});

} // namespace forkscope::engine
