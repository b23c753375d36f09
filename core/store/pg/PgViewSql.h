#pragma once

#include <QByteArray>

// The SELECTs of the contract's views on PostgreSQL (PgContract.cpp), for the migration
// steps that create or replace them (PgMigrations.cpp) and for pgViewSelect. Each reads the
// bytea tables as the file's views read: 0x hex text, rows at or below the checkpoint.
namespace forkscope::store::pg::viewsql {

// The decoded columns `logs` gained at its end in v10.
inline constexpr const char* kLogsDecodedColumns = ", s.event_name, s.args_json";

// `cut`: hide a pending added contract's (and a pending factory's children's) rows above its
// own checkpoint (since v16 and v18).
QByteArray logsSelect(const char* addedColumns, bool cut = false);
QByteArray blocksSelect();
QByteArray transferEventsSelect(bool cut = false);
// `withRule`: with the added factory's rule column (since v18).
QByteArray contractSourcesSelect(bool withRule = true);
QByteArray sourceRangesSelect();
// `withPending`: with the Transfers not folded into balance_store yet (since v20).
QByteArray tokenBalancesSelect(bool withPending = true);
QByteArray indexerCheckpointsSelect();
QByteArray backfillRangesSelect();
QByteArray environmentsSelect();
QByteArray factoryChildrenSelect();
QByteArray orphanedBlocksSelect();
QByteArray nodeSightingsSelect();
QByteArray reorgDiffSelect();
// "<create> <name> AS <select>", e.g. createView("CREATE OR REPLACE VIEW", "logs", ...).
QByteArray createView(const char* create, const char* name, const QByteArray& select);

} // namespace forkscope::store::pg::viewsql
