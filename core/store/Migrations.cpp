#include "Migrations.h"
#include "BinaryContract.h"
#include "ChildrenContract.h"
#include "ForkTreeContract.h"
#include "PendingOutboxContract.h"
#include "ReorgDiffContract.h"
#include "SourcesContract.h"

namespace forkscope::store {

namespace {

// Versions 1 to 4 are contract v3 (hex text tables); version 5 is contract v4
// (BinaryContract.cpp), which renames them and serves their names as views; version 6 does
// the same for reorg_diff_items (ReorgDiffContract.cpp); version 8 stops storing a pending
// Transfer's outbox row (PendingOutboxContract.cpp).

// Version 1: the database contract (docs/design.md, "Database contract"). Every table is keyed by
// environment_id and chain_id so a lab reset (a new environment) never mixes with archived rows.
Migration v1()
{
    return {1,
            QStringLiteral("database contract: environments, checkpoints, blocks, logs, "
                           "transfers, balances, outbox, reorgs, backfill"),
            {
                QStringLiteral("CREATE TABLE environments ("
                               " environment_id TEXT NOT NULL PRIMARY KEY,"
                               " chain_id INTEGER NOT NULL,"
                               " genesis_hash TEXT NOT NULL,"
                               " rpc_url TEXT NOT NULL,"
                               " created_at TEXT NOT NULL,"
                               " archived_at TEXT)"),
                QStringLiteral("CREATE TABLE indexer_checkpoints ("
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " source_id TEXT NOT NULL,"
                               " block_number BIGINT NOT NULL,"
                               " block_hash TEXT NOT NULL,"
                               " policy_version TEXT NOT NULL,"
                               " generation INTEGER NOT NULL,"
                               " updated_at TEXT NOT NULL,"
                               " PRIMARY KEY (environment_id, chain_id, source_id))"),
                QStringLiteral("CREATE TABLE blocks ("
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " block_number BIGINT NOT NULL,"
                               " block_hash TEXT NOT NULL,"
                               " parent_hash TEXT NOT NULL,"
                               " block_timestamp BIGINT NOT NULL,"
                               " PRIMARY KEY (environment_id, chain_id, block_number))"),
                QStringLiteral("CREATE TABLE logs ("
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " block_number BIGINT NOT NULL,"
                               " block_hash TEXT NOT NULL,"
                               " log_index BIGINT NOT NULL,"
                               " tx_hash TEXT NOT NULL,"
                               " address TEXT NOT NULL,"
                               " topic0 TEXT, topic1 TEXT, topic2 TEXT, topic3 TEXT,"
                               " data TEXT NOT NULL,"
                               " PRIMARY KEY (environment_id, chain_id, block_number, log_index))"),
                QStringLiteral("CREATE TABLE transfer_events ("
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " block_number BIGINT NOT NULL,"
                               " log_index BIGINT NOT NULL,"
                               " tx_hash TEXT NOT NULL,"
                               " contract TEXT NOT NULL,"
                               " from_addr TEXT NOT NULL,"
                               " to_addr TEXT NOT NULL,"
                               " value TEXT NOT NULL,"
                               " PRIMARY KEY (environment_id, chain_id, block_number, log_index))"),
                QStringLiteral("CREATE INDEX transfer_events_from ON transfer_events"
                               " (environment_id, chain_id, contract, from_addr)"),
                QStringLiteral("CREATE INDEX transfer_events_to ON transfer_events"
                               " (environment_id, chain_id, contract, to_addr)"),
                QStringLiteral("CREATE TABLE token_balances ("
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " contract TEXT NOT NULL,"
                               " holder TEXT NOT NULL,"
                               " balance TEXT NOT NULL,"
                               " updated_at_block BIGINT NOT NULL,"
                               " PRIMARY KEY (environment_id, chain_id, contract, holder))"),
                // INTEGER PRIMARY KEY is SQLite's rowid alias; the PostgreSQL backend maps
                // this one column to BIGSERIAL.
                QStringLiteral("CREATE TABLE outbox ("
                               " id INTEGER PRIMARY KEY,"
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " block_number BIGINT NOT NULL,"
                               " event_key TEXT NOT NULL,"
                               " payload TEXT NOT NULL,"
                               " delivered_at TEXT,"
                               " UNIQUE (environment_id, chain_id, event_key))"),
                QStringLiteral("CREATE INDEX outbox_pending ON outbox"
                               " (environment_id, chain_id, delivered_at, block_number, id)"),
                QStringLiteral("CREATE TABLE reorg_events ("
                               " id INTEGER PRIMARY KEY,"
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " detected_at TEXT NOT NULL,"
                               " old_block_number BIGINT NOT NULL,"
                               " fork_block_number BIGINT NOT NULL,"
                               " depth BIGINT NOT NULL,"
                               " reason TEXT NOT NULL,"
                               " rows_removed BIGINT NOT NULL)"),
                QStringLiteral("CREATE TABLE backfill_ranges ("
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " from_block BIGINT NOT NULL,"
                               " to_block BIGINT NOT NULL,"
                               " status TEXT NOT NULL,"
                               " attempts INTEGER NOT NULL DEFAULT 0,"
                               " PRIMARY KEY (environment_id, chain_id, from_block))"),
            }};
}

// Version 2: what the reorg-safe indexer needs beyond the contract: where a checkpoint's
// history starts and when its hash was last re-verified, why a Transfer-looking log was not
// decoded, and a per-reorg diff so a user can see exactly what each rollback undid.
Migration v2()
{
    return {2,
            QStringLiteral("indexer: checkpoint start block and verification time, log decode "
                           "errors, reorg hashes and diffs, backfill errors"),
            {
                QStringLiteral("ALTER TABLE indexer_checkpoints ADD COLUMN start_block BIGINT"),
                QStringLiteral("ALTER TABLE indexer_checkpoints ADD COLUMN verified_at TEXT"),
                QStringLiteral("ALTER TABLE logs ADD COLUMN decode_error TEXT"),
                // Decoded by the source's ABI on the fetch side; raw topics/data stay.
                QStringLiteral("ALTER TABLE logs ADD COLUMN event_name TEXT"),
                QStringLiteral("ALTER TABLE logs ADD COLUMN args_json TEXT"),
                QStringLiteral("ALTER TABLE reorg_events ADD COLUMN source_id TEXT"),
                QStringLiteral("ALTER TABLE reorg_events ADD COLUMN old_block_hash TEXT"),
                QStringLiteral("ALTER TABLE reorg_events ADD COLUMN fork_block_hash TEXT"),
                QStringLiteral("ALTER TABLE reorg_events ADD COLUMN delivered_outbox_rows BIGINT"
                               " NOT NULL DEFAULT 0"),
                QStringLiteral("CREATE TABLE reorg_diff_items ("
                               " reorg_id BIGINT NOT NULL,"
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " kind TEXT NOT NULL," // see ReorgRollback.h
                               " block_number BIGINT,"
                               " log_index BIGINT,"
                               " tx_hash TEXT,"
                               " contract TEXT,"
                               " holder TEXT,"
                               " from_addr TEXT,"
                               " to_addr TEXT,"
                               " value TEXT,"
                               " before_value TEXT,"
                               " after_value TEXT,"
                               " event_key TEXT)"),
                QStringLiteral("CREATE INDEX reorg_diff_items_reorg ON reorg_diff_items"
                               " (environment_id, chain_id, reorg_id)"),
                QStringLiteral("ALTER TABLE backfill_ranges ADD COLUMN last_error TEXT"),
                // Delivery bookkeeping: retries are counted, a permanent refusal is shown.
                QStringLiteral("ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0"),
                QStringLiteral("ALTER TABLE outbox ADD COLUMN last_error TEXT"),
                QStringLiteral("ALTER TABLE outbox ADD COLUMN failed_at TEXT"),
                QStringLiteral("ALTER TABLE backfill_ranges ADD COLUMN updated_at TEXT"),
            }};
}

// Version 3: the checkpoint names the contracts it covers. "Every matching log up to block
// N" is a claim about a contract set; a run with another set would leave the added ones'
// history below N missing, and a report must check every contract, not only those with
// stored rows.
// And a rollback reverts balances by the removed transfers instead of recomputing the
// touched holders from all remaining ones: each balance row counts the transfer sides
// (from or to) it sums, so "no transfer left, no row" needs no search. That search was
// what the two holder indexes of transfer_events were for; maintaining them on every
// insert cost a quarter of a full sync (bench/README.md), so they go.
Migration v3()
{
    return {3,
            QStringLiteral("indexer: the contract set each checkpoint covers; balances count "
                           "their transfer sides and the holder indexes go"),
            {
                QStringLiteral("ALTER TABLE indexer_checkpoints ADD COLUMN contracts TEXT"),
                QStringLiteral("ALTER TABLE token_balances ADD COLUMN transfer_sides BIGINT NOT "
                               "NULL DEFAULT 0"),
                QStringLiteral("UPDATE token_balances SET transfer_sides = "
                               "(SELECT count(*) FROM transfer_events t WHERE t.environment_id = "
                               "token_balances.environment_id AND t.chain_id = "
                               "token_balances.chain_id AND t.contract = token_balances.contract "
                               "AND t.from_addr = token_balances.holder) + "
                               "(SELECT count(*) FROM transfer_events t WHERE t.environment_id = "
                               "token_balances.environment_id AND t.chain_id = "
                               "token_balances.chain_id AND t.contract = token_balances.contract "
                               "AND t.to_addr = token_balances.holder)"),
                QStringLiteral("DROP INDEX transfer_events_from"),
                QStringLiteral("DROP INDEX transfer_events_to"),
            }};
}

// Completeness: a range the indexer could not prove complete, and why. It is
// what keeps the app and the report saying "data incomplete" after the run that found it
// has ended, until the range is fetched whole: by `repair` (or the Repair button), or, for
// a range indexing stopped at (kind 'fetch'), by indexing that commits past it. A hole
// found in committed data (kind 'audit') only a repair resolves.
Migration v4()
{
    return {4,
            QStringLiteral("completeness alerts: ranges a provider did not return whole"),
            {
                QStringLiteral("CREATE TABLE completeness_alerts ("
                               " id INTEGER PRIMARY KEY,"
                               " environment_id TEXT NOT NULL,"
                               " chain_id INTEGER NOT NULL,"
                               " detected_at TEXT NOT NULL,"
                               " node TEXT NOT NULL,"
                               " from_block BIGINT NOT NULL,"
                               " to_block BIGINT NOT NULL,"
                               " what TEXT NOT NULL,"
                               " kind TEXT NOT NULL,"
                               " resolved_at TEXT,"
                               " resolution TEXT)"),
                QStringLiteral("CREATE INDEX completeness_alerts_open ON completeness_alerts"
                               " (environment_id, chain_id, resolved_at)"),
            }};
}

} // namespace

const QList<Migration>& migrations()
{
    static const QList<Migration> all{v1(),
                                      v2(),
                                      v3(),
                                      v4(),
                                      binaryContractMigration(),
                                      reorgDiffMigration(),
                                      reorgDiffFoldMigration(),
                                      pendingOutboxMigration(),
                                      childrenMigration(),
                                      sourcesMigration(),
                                      forkTreeMigration(),
                                      sourceFactoriesMigration()};
    return all;
}

int latestSchemaVersion()
{
    return migrations().last().version;
}

} // namespace forkscope::store
