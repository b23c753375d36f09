#pragma once

#include "ContractSurface.h"
#include "Migrations.h"

#include <QString>

namespace forkscope::store {

// Contract v4 (schema 5): the contract's names are views over binary tables.
//
// Why: under contract v3 every hash, address and topic was stored as 0x hex text, each
// outbox row carried a JSON copy of its event, and a Transfer was stored twice (as a log and
// as a transfer_events row). That was about 1,450 bytes and seven B-tree inserts per event,
// and the committing thread, not the node, bounded a full sync (bench/README.md).
//
// The physical tables:
//   block_store    blocks with BLOB hashes                         WITHOUT ROWID
//   log_store      logs with BLOB hashes/address/topics/data, plus
//                  transfer_value (decimal) on the logs that are
//                  ERC-20 Transfers: transfer_events is a view over
//                  them, its addresses read from the log's topics;
//                  args_json only where no template renders it     WITHOUT ROWID
//   balance_store  balances keyed by BLOB contract and holder       WITHOUT ROWID
//   outbox_store   one row per side effect; a Transfer's row names its log (block_number,
//                  log_index) and its event key and payload are rendered from that log.
//                  Only rows whose log is gone (delivered, then reorged: see
//                  ReorgRollback) or that have no log (retractions) store them as text.
//                  Since schema 8 a pending Transfer has no row here until delivery
//                  touches it: the view renders it from the log (PendingOutboxContract.h).
// Amounts stay decimal text: `sqlite3` has no 256-bit arithmetic to render a BLOB with, and
// the contract promises that anyone reading with plain `sqlite3` sees decimal strings.
Migration binaryContractMigration();

// Schema 5's views and INSTEAD OF triggers that the latest schema still has (all but the
// outbox's, which schema 8 replaced); logs and transfer_events as schema 10 cuts them.
QList<SurfaceObject> binaryContractSurface();

// SQL expressions over a log_store row aliased `l`, rendering a Transfer's outbox event key
// and payload exactly as contract v3 stored them: the view, the v3 migration and a rollback
// that keeps a delivered row after its log goes all use these, so the three cannot differ.
QString outboxEventKeySql(const QString& alias = QStringLiteral("l"));
QString outboxPayloadSql();

// The `outbox` view's INSERT and UPDATE triggers (schema 5, and again when schema 8 replaces
// the view). The UPDATE trigger refuses edits to anything but delivery bookkeeping, runs
// `beforeUpdate` (whole statements, each ending in "; "), then updates the stored row.
QString outboxInsertTriggerSql();
QString outboxUpdateTriggerSql(const QString& beforeUpdate = {});

// Lowercase 0x hex of a BLOB column, as the read surface shows it; the nullable form keeps
// NULL as NULL (hex(NULL) would be '').
QString hexSql(const QString& column);
QString nullableHexSql(const QString& column);

// logs.args_json of an ABI-decoded Transfer is not stored: its from, to and value are the
// log's own topics and transfer_value, so only the JSON's shape is, once per ABI event, in
// args_templates (ArgsTemplate.h makes and checks them). The expression renders it over
// log_store (unaliased) joined with args_templates `a`.
QString argsFromTemplateSql();

} // namespace forkscope::store
