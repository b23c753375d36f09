#pragma once

#include "DbSummary.h"

#include <functional>

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::engine {

// The DbSummary of one environment, read through the contract's read surface (a SQLite file
// or a shared PostgreSQL database alike) in one snapshot: the environments, the last 200
// reorgs, the open completeness alerts, the checkpoint and the outbox counts all describe one
// commit. Read statement by statement, an indexer's commit between them paired a checkpoint
// with the outbox rows of the batch after it, a state the database never held. The delivery
// rate and the schema version are the caller's to fill in. `betweenReads` runs after the
// checkpoint is read, before the counts: a test commits there. `chainId` 0: the
// environment's own.
DbSummary readSummary(store::ContractReader& reader, const QString& environmentId, quint64 chainId,
                      const std::function<void()>& betweenReads = {});

} // namespace forkscope::engine
