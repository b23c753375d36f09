#pragma once

#include "IndexOptions.h"

namespace forkscope::app {

// `forkscope index --db postgresql://...`: one of several processes indexing an environment
// into a shared PostgreSQL database. Each backfills ranges (indexer::SharedBackfill); then,
// with --exit-when-synced, it delivers the outbox if given a sink
// (outbox::SharedOutboxDelivery) and exits, and without, one of them follows the head
// (indexer::SharedHeadFollower) until SIGINT/SIGTERM, delivering the outbox between rounds.
// Refuses, in one line each, what is only built for SQLite so far: --abi and the local API.
int runSharedIndexCommand(const IndexOptionsResult& parsed);

} // namespace forkscope::app
