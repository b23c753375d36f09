// The PostgreSQL contract's migration ladder (PgContract.h): one step per version, each
// run once, in order, inside ensurePgContract's transaction, and recorded in
// schema_version with its description.
#include "PgMigrations.h"
#include "PgConnection.h"
#include "PgContract.h"
#include "PgPendingOutbox.h"
#include "PgViewSql.h"

#include <array>

namespace forkscope::store::pg {

namespace {

using namespace viewsql;

void toVersion1(PgConnection& db)
{
    db.exec("CREATE TABLE block_store ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " block_number bigint NOT NULL,"
            " block_hash bytea NOT NULL CHECK (octet_length(block_hash) = 32),"
            " parent_hash bytea NOT NULL CHECK (octet_length(parent_hash) = 32),"
            " block_timestamp bigint NOT NULL,"
            " PRIMARY KEY (environment_id, chain_id, block_number))");
    db.exec("CREATE TABLE log_store ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " block_number bigint NOT NULL,"
            " log_index bigint NOT NULL,"
            " block_hash bytea NOT NULL CHECK (octet_length(block_hash) = 32),"
            " tx_hash bytea NOT NULL CHECK (octet_length(tx_hash) = 32),"
            " address bytea NOT NULL CHECK (octet_length(address) = 20),"
            " topic0 bytea, topic1 bytea, topic2 bytea, topic3 bytea,"
            " data bytea NOT NULL,"
            " decode_error text,"
            // An ERC-20 Transfer's value; its parties are topics 1 and 2.
            " transfer_value numeric(78, 0),"
            " PRIMARY KEY (environment_id, chain_id, block_number, log_index))");
    db.exec(createView("CREATE VIEW", "blocks", blocksSelect()).constData());
    db.exec(createView("CREATE VIEW", "logs", logsSelect("")).constData());
    db.exec(createView("CREATE VIEW", "transfer_events", transferEventsSelect()).constData());
}

void toVersion2(PgConnection& db)
{
    // One row per Transfer, written with its log in the range's transaction; the
    // event key and payload are rendered from the log at delivery time, as in
    // SQLite (store/BinaryContract.h), not copied per event.
    db.exec("CREATE TABLE outbox_store ("
            " id bigserial PRIMARY KEY,"
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " block_number bigint NOT NULL,"
            " log_index bigint NOT NULL,"
            " delivered_at timestamptz,"
            " attempts integer NOT NULL DEFAULT 0,"
            " last_error text,"
            " failed_at timestamptz,"
            " UNIQUE (environment_id, chain_id, block_number, log_index),"
            " FOREIGN KEY (environment_id, chain_id, block_number, log_index)"
            "  REFERENCES log_store (environment_id, chain_id, block_number, log_index))");
    db.exec("CREATE INDEX outbox_store_pending ON outbox_store (environment_id, "
            "chain_id, block_number, id) WHERE delivered_at IS NULL AND failed_at IS "
            "NULL");
    const QByteArray outbox =
        "CREATE VIEW outbox AS SELECT o.id, o.environment_id, o.chain_id, "
        "o.block_number, " +
        pgOutboxEventKeySql() + " AS event_key, " + pgOutboxPayloadSql() +
        " AS payload, o.delivered_at::text AS delivered_at, o.attempts, o.last_error, "
        "o.failed_at::text AS failed_at FROM outbox_store o JOIN log_store l ON "
        "l.environment_id = o.environment_id AND l.chain_id = o.chain_id AND "
        "l.block_number = o.block_number AND l.log_index = o.log_index WHERE "
        "o.block_number <= (SELECT max(c.block_number) FROM indexer_checkpoints c "
        "WHERE c.environment_id = o.environment_id AND c.chain_id = o.chain_id)";
    db.exec(outbox.constData());
}

void toVersion3(PgConnection& db)
{
    // A sum over the Transfers until v12 (balance_store since: see below).
    db.exec("CREATE VIEW token_balances AS SELECT ''::text AS environment_id, 0::bigint "
            "AS chain_id, ''::text AS contract, ''::text AS holder, ''::text AS balance, "
            "0::bigint AS updated_at_block, 0::bigint AS transfer_sides WHERE false");
}

void toVersion4(PgConnection& db)
{
    // What the head follower rolled back, as SQLite records it (hashes as 0x text:
    // a reorg is rare and read by people).
    db.exec("CREATE TABLE reorg_events ("
            " id bigserial PRIMARY KEY,"
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " detected_at text NOT NULL,"
            " old_block_number bigint NOT NULL,"
            " fork_block_number bigint NOT NULL,"
            " depth bigint NOT NULL,"
            " reason text NOT NULL,"
            " rows_removed bigint NOT NULL,"
            " source_id text,"
            " old_block_hash text,"
            " fork_block_hash text,"
            " delivered_outbox_rows bigint)");
}

void toVersion5(PgConnection& db)
{
    // Live updates without polling (LISTEN forkscope_checkpoint): every move of a
    // checkpoint, by any writer, is announced when its transaction commits, and
    // never for one that rolls back. A move backwards is a reorg.
    db.exec("CREATE FUNCTION forkscope_notify_checkpoint() RETURNS trigger LANGUAGE "
            "plpgsql AS $$ BEGIN PERFORM pg_notify('forkscope_checkpoint', "
            "json_build_object('env', NEW.environment_id, 'chainId', NEW.chain_id, "
            "'source', NEW.source_id, 'block', NEW.block_number, 'hash', '0x' || "
            "encode(NEW.block_hash, 'hex'), 'reorg', TG_OP = 'UPDATE' AND "
            "NEW.block_number < OLD.block_number)::text); RETURN NEW; END $$");
    // The checkpoints' table (its name since v12: ensureCoordinationSchema renames it
    // before any step runs).
    db.exec("CREATE TRIGGER indexer_checkpoints_notify AFTER INSERT OR UPDATE ON "
            "checkpoint_store FOR EACH ROW EXECUTE FUNCTION "
            "forkscope_notify_checkpoint()");
}

void toVersion6(PgConnection& db)
{
    // The outbox's foreign key to log_store checked each row at COPY time and cost
    // half of the server's CPU in a backfill (bench/README): both rows are written
    // by the same COPY transaction and removed by the same rollback, outbox first,
    // so the key guarded nothing our writers can break.
    db.exec("DO $$ DECLARE c text; BEGIN SELECT conname INTO c FROM pg_constraint "
            "WHERE conrelid = 'outbox_store'::regclass AND contype = 'f'; IF c IS NOT "
            "NULL THEN EXECUTE format('ALTER TABLE outbox_store DROP CONSTRAINT %I', "
            "c); END IF; END $$");
}

void toVersion7(PgConnection& db)
{
    // An environment is one chain (id + genesis hash) under one id, as in SQLite:
    // a process whose node serves another chain is refused before it writes, so
    // two histories never mix in one shared index.
    db.exec("CREATE TABLE environments ("
            " environment_id text PRIMARY KEY,"
            " chain_id bigint NOT NULL,"
            " genesis_hash text NOT NULL,"
            " rpc_url text NOT NULL,"
            " created_at text NOT NULL,"
            " archived_at text,"
            // The contracts every process indexes (sorted 0x hex, space separated):
            // a process naming another set would leave holes in the others' ranges.
            " contracts text NOT NULL)");
}

void toVersion8(PgConnection& db)
{
    // The outbox's times as SQLite writes them (UTC ISO 8601 with milliseconds, so
    // that they sort and compare as text), not the server's timestamptz text.
    const QByteArray outbox =
        "CREATE OR REPLACE VIEW outbox AS SELECT o.id, o.environment_id, o.chain_id, "
        "o.block_number, " +
        pgOutboxEventKeySql() + " AS event_key, " + pgOutboxPayloadSql() + " AS payload, " +
        pgIsoUtcSql("o.delivered_at") + " AS delivered_at, o.attempts, o.last_error, " +
        pgIsoUtcSql("o.failed_at") +
        " AS failed_at FROM outbox_store o JOIN log_store l ON "
        "l.environment_id = o.environment_id AND l.chain_id = o.chain_id AND "
        "l.block_number = o.block_number AND l.log_index = o.log_index WHERE "
        "o.block_number <= (SELECT max(c.block_number) FROM indexer_checkpoints c "
        "WHERE c.environment_id = o.environment_id AND c.chain_id = o.chain_id)";
    db.exec(outbox.constData());
    // A delivery does not move the checkpoint, and watchers learn of it without
    // polling: one announcement per statement that marks rows, at commit.
    db.exec("CREATE FUNCTION forkscope_notify_outbox() RETURNS trigger LANGUAGE "
            "plpgsql AS $$ BEGIN PERFORM pg_notify('forkscope_outbox', ''); RETURN "
            "NULL; END $$");
    db.exec("CREATE TRIGGER outbox_store_notify AFTER UPDATE ON outbox_store FOR EACH "
            "STATEMENT EXECUTE FUNCTION forkscope_notify_outbox()");
}

void toVersion9(PgConnection& db)
{
    // Retractions, as in SQLite: a reorg that removes Transfers a consumer already
    // received enqueues a compensating row with its own key and payload, and the
    // delivered rows outlive their logs with the text the consumer got. Such rows
    // carry event_key and payload; every other row is rendered from its log.
    db.exec("ALTER TABLE outbox_store ALTER COLUMN log_index DROP NOT NULL, ADD COLUMN "
            "event_key text, ADD COLUMN payload text");
    db.exec("CREATE UNIQUE INDEX outbox_store_own_key ON outbox_store (environment_id, "
            "chain_id, event_key) WHERE event_key IS NOT NULL");
    db.exec(createView("CREATE OR REPLACE VIEW", "outbox", pgOutboxSelect()).constData());
}

void toVersion10(PgConnection& db)
{
    // ABI decoding (--abi), as SQLite's logs.event_name and logs.args_json: the
    // compact JSON the fetch side decoded, stored as text so a reader gets the same
    // bytes from either store.
    db.exec("ALTER TABLE log_store ADD COLUMN event_name text, ADD COLUMN args_json "
            "text");
    // A source is its contracts and their ABI (docs/design.md, "The wire"): every process
    // of an environment decodes with the same one ('' = none, all there was before v10).
    db.exec("ALTER TABLE environments ADD COLUMN abi_digest text NOT NULL DEFAULT ''");
    db.exec(
        createView("CREATE OR REPLACE VIEW", "logs", logsSelect(kLogsDecodedColumns)).constData());
}

void toVersion11(PgConnection& db)
{
    // What each rollback removed, as SQLite records it (store/ReorgDiffContract.h):
    // the app's reorg diff and the report read reorg_diff_items on either store. A
    // dropped outbox row keeps its log's block hash, from which its key is rendered.
    db.exec("CREATE TABLE reorg_diff_store ("
            " id bigserial PRIMARY KEY," // the order the rollback recorded its rows in
            " reorg_id bigint NOT NULL,"
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " kind text NOT NULL,"
            " block_number bigint, log_index bigint,"
            " block_hash bytea, tx_hash bytea, contract bytea, holder bytea,"
            " from_addr bytea, to_addr bytea,"
            " value text, before_value text, after_value text, event_key text)");
    db.exec("CREATE INDEX reorg_diff_store_reorg ON reorg_diff_store (environment_id, "
            "chain_id, reorg_id)");
    db.exec(createView("CREATE VIEW", "reorg_diff_items", reorgDiffSelect()).constData());
}

void toVersion12(PgConnection& db)
{
    // The same read surface as a file, name for name and column for column: balances
    // kept per checkpoint move (never summed on read), the environments' own
    // columns (the contract set and ABI digest stay in environment_store). What the
    // checkpoint covered so far is summed once, here.
    db.exec("CREATE TABLE balance_store ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " contract bytea NOT NULL CHECK (octet_length(contract) = 20),"
            " holder bytea NOT NULL CHECK (octet_length(holder) = 20),"
            " balance numeric NOT NULL,"
            " updated_at_block bigint NOT NULL,"
            " transfer_sides bigint NOT NULL,"
            " PRIMARY KEY (environment_id, chain_id, contract, holder))");
    db.exec("INSERT INTO balance_store SELECT t.environment_id, t.chain_id, t.contract, "
            "t.holder, sum(t.delta), max(t.block_number), count(*) FROM (SELECT "
            "s.environment_id, s.chain_id, s.block_number, s.address AS contract, "
            "substr(s.topic2, 13) AS holder, s.transfer_value AS delta FROM log_store s "
            "WHERE s.transfer_value IS NOT NULL UNION ALL SELECT s.environment_id, "
            "s.chain_id, s.block_number, s.address, substr(s.topic1, 13), "
            "-s.transfer_value FROM log_store s WHERE s.transfer_value IS NOT NULL) t "
            "WHERE t.holder <> '\\x0000000000000000000000000000000000000000'::bytea AND "
            "t.block_number <= (SELECT max(c.block_number) FROM checkpoint_store c WHERE "
            "c.environment_id = t.environment_id AND c.chain_id = t.chain_id) GROUP BY "
            "t.environment_id, t.chain_id, t.contract, t.holder");
    db.exec("DROP VIEW token_balances");
    db.exec(createView("CREATE VIEW", "token_balances", tokenBalancesSelect(false)).constData());
    db.exec("ALTER TABLE environments RENAME TO environment_store");
    db.exec(createView("CREATE VIEW", "environments", environmentsSelect()).constData());
    db.exec(createView("CREATE OR REPLACE VIEW", "blocks", blocksSelect()).constData());
    db.exec(
        createView("CREATE OR REPLACE VIEW", "logs", logsSelect(kLogsDecodedColumns)).constData());
    db.exec(createView("CREATE OR REPLACE VIEW", "transfer_events", transferEventsSelect())
                .constData());
    db.exec(createView("CREATE OR REPLACE VIEW", "outbox", pgOutboxSelect()).constData());
}

void toVersion13(PgConnection& db)
{
    db.exec("CREATE TABLE child_store ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " child bytea NOT NULL CHECK (octet_length(child) = 20),"
            " factory bytea NOT NULL CHECK (octet_length(factory) = 20),"
            " block_number bigint NOT NULL,"
            " log_index bigint NOT NULL,"
            " block_hash bytea NOT NULL,"
            " tx_hash bytea NOT NULL,"
            " PRIMARY KEY (environment_id, chain_id, child))");
    db.exec("CREATE INDEX child_store_block ON child_store (environment_id, chain_id, "
            "block_number)");
    db.exec(createView("CREATE VIEW", "factory_children", factoryChildrenSelect()).constData());
}

void toVersion14(PgConnection& db)
{
    db.exec(createView("CREATE OR REPLACE VIEW", "outbox", pgOutboxSelect()).constData());
}

void toVersion15(PgConnection& db)
{
    // Every checkpoint move rewrites the row of nearly every holder its Transfers
    // touch: with room on its page, the new version stays there (a heap-only update,
    // no new key index entry) and the versions the move before left are pruned as the
    // page is read, instead of the key index growing a dead entry per fold.
    db.exec("ALTER TABLE balance_store SET (fillfactor = 50)");
}

void toVersion16(PgConnection& db)
{
    db.exec("CREATE TABLE source_store ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " address bytea NOT NULL CHECK (octet_length(address) = 20),"
            " start_block bigint NOT NULL,"
            " block_number bigint,"
            " block_hash bytea,"
            " state text NOT NULL CHECK (state IN ('pending', 'joined', 'archived')),"
            " added_at text NOT NULL,"
            " joined_at text,"
            " CHECK ((block_number IS NULL) = (block_hash IS NULL)),"
            " PRIMARY KEY (environment_id, chain_id, address))");
    db.exec("CREATE TABLE source_range_store ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " address bytea NOT NULL,"
            " from_block bigint NOT NULL,"
            " to_block bigint NOT NULL,"
            " status text NOT NULL,"
            " attempts bigint NOT NULL,"
            " updated_at text NOT NULL,"
            " PRIMARY KEY (environment_id, chain_id, address, from_block))");
    db.exec(createView("CREATE OR REPLACE VIEW", "logs", logsSelect(kLogsDecodedColumns, true))
                .constData());
    db.exec(createView("CREATE OR REPLACE VIEW", "transfer_events", transferEventsSelect(true))
                .constData());
    db.exec(
        createView("CREATE VIEW", "contract_sources", contractSourcesSelect(false)).constData());
    db.exec(createView("CREATE VIEW", "source_ranges", sourceRangesSelect()).constData());
}

void toVersion17(PgConnection& db)
{
    // Keyed by rollback first: pruning removes the oldest rollbacks' rows as a range.
    db.exec("CREATE TABLE orphan_block_store ("
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " reorg_id bigint NOT NULL,"
            " block_number bigint NOT NULL,"
            " block_hash bytea NOT NULL CHECK (octet_length(block_hash) = 32),"
            " parent_hash bytea NOT NULL CHECK (octet_length(parent_hash) = 32),"
            " removed_at text NOT NULL,"
            " PRIMARY KEY (environment_id, chain_id, reorg_id, block_number))");
    db.exec("CREATE INDEX orphan_block_store_number ON orphan_block_store "
            "(environment_id, chain_id, block_number)");
    db.exec("CREATE TABLE node_sighting_store ("
            " id bigserial PRIMARY KEY,"
            " environment_id text NOT NULL,"
            " chain_id bigint NOT NULL,"
            " node text NOT NULL,"
            " block_number bigint NOT NULL,"
            " block_hash bytea NOT NULL CHECK (octet_length(block_hash) = 32),"
            " seen_at text NOT NULL)");
    db.exec("CREATE INDEX node_sighting_store_node ON node_sighting_store "
            "(environment_id, chain_id, node, id)");
    db.exec("CREATE INDEX node_sighting_store_number ON node_sighting_store "
            "(environment_id, chain_id, block_number)");
    db.exec(createView("CREATE VIEW", "orphaned_blocks", orphanedBlocksSelect()).constData());
    db.exec(createView("CREATE VIEW", "node_sightings", nodeSightingsSelect()).constData());
}

void toVersion18(PgConnection& db)
{
    db.exec("ALTER TABLE source_store ADD COLUMN factory_rule text");
    db.exec(createView("CREATE OR REPLACE VIEW", "logs", logsSelect(kLogsDecodedColumns, true))
                .constData());
    db.exec(createView("CREATE OR REPLACE VIEW", "transfer_events", transferEventsSelect(true))
                .constData());
    db.exec(createView("CREATE OR REPLACE VIEW", "contract_sources", contractSourcesSelect())
                .constData());
}

// v20's view read this column; v21 moved it to a table of its own and replaced the view.
// Every migration runs to the last version in one transaction, so v20's view is never read
// on the way.
void toVersion20(PgConnection& db)
{
    db.exec("ALTER TABLE checkpoint_store ADD COLUMN IF NOT EXISTS balances_block bigint");
}

void toVersion21(PgConnection& db)
{
    db.exec("CREATE TABLE IF NOT EXISTS balance_fold_store (environment_id text NOT NULL, chain_id "
            "bigint NOT "
            "NULL, balances_block bigint, epoch bigint NOT NULL DEFAULT 0, PRIMARY KEY "
            "(environment_id, chain_id))");
    db.exec("INSERT INTO balance_fold_store (environment_id, chain_id, balances_block) SELECT "
            "environment_id, chain_id, min(balances_block) FROM checkpoint_store WHERE "
            "balances_block IS NOT NULL GROUP BY environment_id, chain_id ON CONFLICT DO "
            "NOTHING");
    db.exec(
        createView("CREATE OR REPLACE VIEW", "token_balances", tokenBalancesSelect()).constData());
    db.exec("ALTER TABLE checkpoint_store DROP COLUMN IF EXISTS balances_block");
}

struct PgMigration
{
    int version;
    const char* description;
    void (*apply)(PgConnection&);
};

const std::array<PgMigration, kPgContractVersion> kMigrations{{
    {1, "contract v4 on PostgreSQL: bytea tables, hex views below the checkpoint", toVersion1},
    {2, "outbox_store, rendered at delivery through the outbox view", toVersion2},
    {3, "token_balances as a view over the Transfers below the checkpoint", toVersion3},
    {4, "reorg_events", toVersion4},
    {5, "NOTIFY forkscope_checkpoint on every checkpoint move", toVersion5},
    {6, "no foreign key from outbox_store to log_store", toVersion6},
    {7, "environments (chain id, genesis hash and contract set per environment)", toVersion7},
    {8, "outbox times as UTC ISO 8601 text, as in SQLite; NOTIFY forkscope_outbox on deliveries",
     toVersion8},
    {9, "retractions: outbox rows with their own key and payload", toVersion9},
    {10, "decoded events: logs.event_name and logs.args_json, environments.abi_digest",
     toVersion10},
    {11, "reorg_diff_items: what each rollback removed", toVersion11},
    {12,
     "the read surface of a file: balance_store, indexer_checkpoints, backfill_ranges and "
     "environments as views, alert times as text",
     toVersion12},
    {13, "factory sources: child_store and the factory_children view", toVersion13},
    {14, "outbox: a row with its own key shows above the checkpoint, as in a file", toVersion14},
    {15, "balance_store pages kept half free for in-place balance updates", toVersion15},
    {16,
     "contracts added to an environment: source_store, source_range_store, their views, and logs "
     "cut at a pending contract's checkpoint",
     toVersion16},
    {17, "the fork tree: orphan_block_store, node_sighting_store and their views", toVersion17},
    {18,
     "factories added to an environment: source_store.factory_rule, and their children's rows cut "
     "at the factory's checkpoint",
     toVersion18},
    {19, "outbox: a pending Transfer's row is rendered from its log, stored once delivery takes it",
     pendingOutboxStep},
    {20,
     "token_balances: balance_store up to the checkpoint's balances_block, the Transfers above "
     "it summed on read",
     toVersion20},
    {21,
     "balance_fold_store: where balance_store stands, apart from the checkpoint row, so a "
     "backfill folds beside its commits",
     toVersion21},
}};

} // namespace

void migratePgContract(PgConnection& db, qint64 have)
{
    for (const PgMigration& m : kMigrations) {
        if (m.version <= have)
            continue;
        m.apply(db);
        db.run("pg_contract_version",
               "INSERT INTO schema_version (version, description) VALUES ($1, $2)",
               {QByteArray::number(m.version), QByteArray(m.description)});
    }
}

} // namespace forkscope::store::pg
