#pragma once

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::coord {

// The tables several indexer processes coordinate through on a shared PostgreSQL database:
// `backfill_ranges` and `indexer_checkpoints`, with the columns the SQLite
// contract documents plus what sharing needs (a range's owner and lease, the hashes that
// chain finished ranges together, a checkpoint generation for compare-and-swap). Hashes
// are bytea, as in contract v4. Idempotent: every process runs it at start, in one
// transaction, under an advisory lock so two first starts do not race on CREATE.
void ensureCoordinationSchema(store::pg::PgConnection& db);

} // namespace forkscope::coord
