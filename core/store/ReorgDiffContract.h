#pragma once

#include "Migrations.h"

#include <QString>

namespace forkscope::store {

// Schema 6: reorg_diff_items is a view over reorg_diff_store, whose hashes and addresses are
// BLOBs, like the rest of contract v4.
//
// Why: a rollback copies every removed Transfer and every dropped outbox row into the diff
// before it deletes them. Rendered as hex text (through the transfer_events and outbox
// views), those copies were half of a depth-64 rollback over 10,000 Transfers; copied as
// BLOBs straight from log_store and outbox_store they cost a fifth of that (bench/README.md,
// "Rollback").
//
// An outbox row that named its log keeps that log's block hash in the diff instead of a
// rendered key: the view renders the key from it exactly as the outbox view did, so the
// diff says which event was dropped after the log itself is gone.
Migration reorgDiffMigration();

// The select list of reorg_diff_items over reorg_diff_store aliased `d`, in the contract's
// column order; ReorgEventStore reads the store through it (ordered by insertion, which a
// view cannot offer).
QString reorgDiffColumnsSql();

} // namespace forkscope::store
