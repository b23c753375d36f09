#include "CoordinationSchema.h"
#include "store/pg/PgConnection.h"

namespace forkscope::coord {

void ensureCoordinationSchema(store::pg::PgConnection& db)
{
    db.begin();
    try {
        // Transaction-scoped: released at COMMIT. Key 'Fksc' + 1: schema changes.
        db.exec("SELECT pg_advisory_xact_lock(1181445987, 1)");
        db.exec("CREATE TABLE IF NOT EXISTS indexer_checkpoints ("
                " environment_id text NOT NULL,"
                " chain_id bigint NOT NULL,"
                " source_id text NOT NULL,"
                " block_number bigint NOT NULL,"
                " block_hash bytea NOT NULL CHECK (octet_length(block_hash) = 32),"
                // Bumped by every move: the compare-and-swap token (docs/design.md,
                // "The checkpoint is a claim about a finished prefix").
                " generation bigint NOT NULL DEFAULT 0,"
                " updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),"
                " PRIMARY KEY (environment_id, chain_id, source_id))");
        db.exec(
            "CREATE TABLE IF NOT EXISTS backfill_ranges ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " from_block bigint NOT NULL,"
            " to_block bigint NOT NULL CHECK (to_block >= from_block),"
            " status text NOT NULL DEFAULT 'pending'"
            "  CHECK (status IN ('pending', 'running', 'done', 'failed')),"
            " attempts integer NOT NULL DEFAULT 0,"
            " last_error text,"
            " updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),"
            // Who holds a running range, and until when (the server's clock).
            " owner text,"
            " lease_until timestamptz,"
            // A finished range's first block's parent and its last block's hash: the
            // checkpoint only moves across ranges that chain onto each other.
            " parent_hash bytea CHECK (octet_length(parent_hash) = 32),"
            " last_hash bytea CHECK (octet_length(last_hash) = 32),"
            " PRIMARY KEY (environment_id, chain_id, from_block),"
            " CHECK ((status = 'running') = (owner IS NOT NULL AND lease_until IS NOT NULL)),"
            " CHECK ((status = 'done') = (last_hash IS NOT NULL AND parent_hash IS NOT NULL)))");
        // Absence suspicions of the head follower (coord/SharedAlerts.h): a file keeps them
        // in its own table of this name, with the same columns.
        db.exec("CREATE TABLE IF NOT EXISTS completeness_alerts ("
                " id bigserial PRIMARY KEY,"
                " environment_id text NOT NULL,"
                " chain_id bigint NOT NULL,"
                " detected_at timestamptz NOT NULL DEFAULT clock_timestamp(),"
                " node text NOT NULL,"
                " from_block bigint NOT NULL,"
                " to_block bigint NOT NULL CHECK (to_block >= from_block),"
                " what text NOT NULL,"
                " kind text NOT NULL,"
                " resolved_at timestamptz,"
                " resolution text)");
        db.exec("CREATE INDEX IF NOT EXISTS completeness_alerts_open ON completeness_alerts"
                " (environment_id, chain_id) WHERE resolved_at IS NULL");
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
}

} // namespace forkscope::coord
