#pragma once

#include "ContractSurface.h"
#include "Migrations.h"

#include <QString>

namespace forkscope::store {

// Schema 6: reorg_diff_items is a view over reorg_diff_store, whose hashes and addresses are
// BLOBs, like the rest of contract v4.
//
// Why: a rollback copies every removed Transfer and every dropped outbox row into the diff
// before it deletes them. Rendered as hex text (through the transfer_events and outbox
// views), those copies were half of a depth-64 rollback over 10,000 Transfers; copied as
// BLOBs straight from log_store and outbox_store they cost a fifth of that (bench/README.md's
// history).
//
// An outbox row that named its log keeps that log's block hash in the diff instead of a
// rendered key: the view renders the key from it exactly as the outbox view did, so the
// diff says which event was dropped after the log itself is gone.
Migration reorgDiffMigration();

// The select list of reorg_diff_items over reorg_diff_store aliased `d`, in the contract's
// column order; ReorgEventStore reads the store through it (ordered by insertion, which a
// view cannot offer).
QString reorgDiffColumnsSql();

// Schema 7: a removed Transfer's diff row also records what became of its outbox row
// (`outbox_kind`: outbox_dropped, outbox_delivered_reorged or, since the rollback retracts
// rows sent without an answer, outbox_unconfirmed_retracted) and keeps its log's block hash,
// and the view expands it into that outbox item.
//
// Why: a depth-64 rollback copied 10,000 outbox rows into the diff beside the 10,000
// Transfers they were made from, each joined back to its log for the block hash: a quarter of
// the rollback (bench/README.md's history). Only outbox rows that store their own key and
// payload (retractions, rows whose log is gone) are still copied on their own.
Migration reorgDiffFoldMigration();

// Schema 7's reorg_diff_items view.
QList<SurfaceObject> reorgDiffSurface();

// reorg_diff_items' rows with the store's `id` and a `phase` (0 transfers, 1 outbox rows, 2
// balances): ordered by phase, id they are in the order a rollback recorded them.
QString reorgDiffRowsSql();

} // namespace forkscope::store
