#pragma once

#include "IndexOptions.h"

namespace forkscope::app {

// `forkscope index --db postgresql://...`: one of several processes backfilling an
// environment into a shared PostgreSQL database (indexer::SharedBackfill). Refuses, in one
// line each, what is only built for SQLite so far: following the head (it needs
// --exit-when-synced), --abi and the local API. With a sink, the outbox is delivered once
// the backfill is complete (outbox::SharedOutboxDelivery).
int runSharedIndexCommand(const IndexOptionsResult& parsed);

} // namespace forkscope::app
