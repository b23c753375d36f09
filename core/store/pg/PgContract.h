#pragma once

#include "store/ContractSurface.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace forkscope::store::pg {

class PgConnection;

// The storage contract on PostgreSQL (docs/postgresql.md): the v4 binary tables (`block_store`,
// `log_store`) with bytea for hashes, addresses, topics and data and numeric(78,0) for a
// Transfer's value, and the contract's read surface as views under the names
// docs/design.md documents (`blocks`, `logs`, `transfer_events`, `token_balances`, `outbox`:
// lowercase 0x hex text, decimal amount strings), next to the coordination tables
// (coord/CoordinationSchema).
//
// Invariant 1 with several writers: each process commits a finished range's rows with its
// "done" mark, so rows above the checkpoint exist while the ranges below them are still
// running. The views therefore show only rows at or below the environment's checkpoint:
// whatever a reader sees as indexed has every block below it indexed too.
//
// Versioned in `schema_version` like the SQLite file; a database a newer Forkscope wrote is
// refused (StoreError::Kind::NewerSchema). Idempotent; every process runs it at start.
// It also restores, in the same transaction, any view of the contract (store/ContractSurface.h)
// that was dropped or replaced, and returns the one line that says which (empty: none).
QString ensurePgContract(PgConnection& db);

constexpr int kPgContractVersion = 21;

// For readers (report, verify, the app), which never write: throws PgError unless the
// database holds exactly this contract version and every view of it, saying what to run.
void requireCurrentPgContract(PgConnection& db);

// The contract's views as this database has them (PgContractSurface.cpp): each one missing,
// defined otherwise, or whose name another relation holds. Writes nothing that outlives it.
// Where the session may not create a temporary view (a hot standby) only presence is checked.
QList<SurfaceFinding> pgSurfaceFindings(PgConnection& db);
// Inside ensurePgContract's transaction: recreates what pgSurfaceFindings names and returns
// the line that says so; throws PgError when a table holds a view's name.
QString restorePgSurface(PgConnection& db);
// A contract view's SELECT on PostgreSQL, as the latest contract version defines it; empty
// for any other name.
QByteArray pgViewSelect(const QString& name);

// The channel every checkpoint move is announced on, at commit: a JSON object
// {"env", "chainId", "source", "block", "hash", "reorg"} (reorg: it moved backwards).
constexpr const char* kCheckpointChannel = "forkscope_checkpoint";

// SQL over a log_store row aliased `l` (or any row with block_number, block_hash and
// log_index under `alias`): a Transfer's outbox event key and JSON payload, the same text
// SQLite renders (store/BinaryContract.h).
QByteArray pgOutboxEventKeySql(const char* alias = "l");
QByteArray pgOutboxPayloadSql();
// The select list of reorg_diff_items over reorg_diff_store aliased `d`, in the contract's
// column order (as store::reorgDiffColumnsSql on SQLite).
QByteArray pgReorgDiffColumnsSql();
// SQL rendering a timestamptz column as SQLite's times read (store::nowUtc()):
// 2026-12-02T04:30:00.123Z.
QByteArray pgIsoUtcSql(const char* column);

} // namespace forkscope::store::pg
