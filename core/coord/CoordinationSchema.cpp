#include "CoordinationSchema.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"

namespace forkscope::coord {

namespace {

// Tables a database of an older Forkscope kept under the names the contract's views now
// take: renamed in place (the views over them follow a rename), their columns brought up.
void renameOlderTables(store::pg::PgConnection& db)
{
    db.exec("DO $$ BEGIN "
            "IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('indexer_checkpoints')) = "
            "'r' THEN "
            " ALTER TABLE indexer_checkpoints RENAME TO checkpoint_store;"
            " ALTER TABLE checkpoint_store RENAME COLUMN generation TO version;"
            "END IF; "
            "IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('backfill_ranges')) = 'r' "
            "THEN "
            " ALTER TABLE backfill_ranges RENAME TO range_store;"
            "END IF; "
            "IF (SELECT data_type FROM information_schema.columns WHERE table_name = "
            "'completeness_alerts' AND column_name = 'detected_at' AND table_schema = "
            "current_schema()) = 'timestamp with time zone' THEN "
            " ALTER TABLE completeness_alerts ALTER COLUMN detected_at DROP DEFAULT;"
            " ALTER TABLE completeness_alerts ALTER COLUMN detected_at TYPE text USING "
            "to_char(detected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"');"
            " ALTER TABLE completeness_alerts ALTER COLUMN resolved_at TYPE text USING "
            "to_char(resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"');"
            "END IF; "
            "END $$");
}

} // namespace

void ensureCoordinationSchema(store::pg::PgConnection& db)
{
    db.begin();
    try {
        // Transaction-scoped: released at COMMIT. Key 'Fksc' + 1: schema changes.
        db.exec("SELECT pg_advisory_xact_lock(1181445987, 1)");
        renameOlderTables(db);
        // The checkpoint of each (environment, chain, source), behind the contract's
        // `indexer_checkpoints` view (hashes as bytea here, 0x text there).
        db.exec("CREATE TABLE IF NOT EXISTS checkpoint_store ("
                " environment_id text NOT NULL,"
                " chain_id bigint NOT NULL,"
                " source_id text NOT NULL,"
                " block_number bigint NOT NULL,"
                " block_hash bytea NOT NULL CHECK (octet_length(block_hash) = 32),"
                // Bumped by every move: the compare-and-swap token (docs/design.md,
                // "The checkpoint is a claim about a finished prefix").
                " version bigint NOT NULL DEFAULT 0,"
                " updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),"
                " PRIMARY KEY (environment_id, chain_id, source_id))");
        // What SQLite's checkpoint records too: the policy, the projection generation, the
        // first block, the last confirmation on the node and the contract set.
        db.exec("ALTER TABLE checkpoint_store ADD COLUMN IF NOT EXISTS policy_version text, ADD "
                "COLUMN IF NOT EXISTS start_block bigint, ADD COLUMN IF NOT EXISTS verified_at "
                "timestamptz, ADD COLUMN IF NOT EXISTS contracts text, ADD COLUMN IF NOT EXISTS "
                "generation integer NOT NULL DEFAULT 1");
        db.exec(
            "CREATE TABLE IF NOT EXISTS range_store ("
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
        // Before a checkpoint recorded its first block, it was the first range's.
        db.exec("UPDATE checkpoint_store c SET start_block = (SELECT min(r.from_block) FROM "
                "range_store r WHERE r.environment_id = c.environment_id AND r.chain_id = "
                "c.chain_id) WHERE start_block IS NULL");
        // Completeness alerts, as a file keeps them (the same columns, times as UTC ISO text).
        db.exec("CREATE TABLE IF NOT EXISTS completeness_alerts ("
                " id bigserial PRIMARY KEY,"
                " environment_id text NOT NULL,"
                " chain_id bigint NOT NULL,"
                " detected_at text NOT NULL,"
                " node text NOT NULL,"
                " from_block bigint NOT NULL,"
                " to_block bigint NOT NULL CHECK (to_block >= from_block),"
                " what text NOT NULL,"
                " kind text NOT NULL,"
                " resolved_at text,"
                " resolution text)");
        db.exec("CREATE INDEX IF NOT EXISTS completeness_alerts_open ON completeness_alerts"
                " (environment_id, chain_id) WHERE resolved_at IS NULL");
        // The contract's names of the two tables, as views with the columns and text a file
        // has (the coordination columns stay in the tables), made here while the contract's
        // steps are still to run (they read them). On a current database a view dropped or
        // altered by hand is restored, and said, with the rest of the surface
        // (restorePgSurface); never replaced on every open: that takes an exclusive lock
        // that waits for every reader of the view, and a reader waiting here for the schema
        // lock would deadlock.
        const bool current =
            db.exec("SELECT to_regclass('schema_version') IS NOT NULL").text(0, 0) == "t" &&
            db.exec("SELECT coalesce(max(version), 0) FROM schema_version").int64(0, 0) >=
                store::pg::kPgContractVersion;
        if (!current)
            for (const char* view : {"indexer_checkpoints", "backfill_ranges"})
                if (db.run("coord_view_absent", "SELECT to_regclass($1) IS NULL", {view})
                        .text(0, 0) == "t")
                    db.exec(QByteArray("CREATE VIEW " + QByteArray(view) + " AS " +
                                       store::pg::pgViewSelect(QString::fromLatin1(view)))
                                .constData());
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
}

} // namespace forkscope::coord
