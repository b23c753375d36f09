#pragma once

#include "ContractSurface.h"
#include "Migrations.h"

#include <QString>

namespace forkscope::store {

// Schema 10: contracts added to an environment already indexed (docs/sources.md).
// `source_store` holds each added contract with its start block, its own checkpoint (block
// and hash, NULL before its first backfill batch) and its state: pending until its backfill
// reaches the environment's checkpoint, then joined. `source_range_store` records the ranges
// its backfill committed. The `logs` and `transfer_events` views show a pending contract's
// rows only up to its own checkpoint; `contract_sources` and `source_ranges` serve both
// tables as lowercase 0x hex.
Migration sourcesMigration();

// Schema 10's contract_sources and source_ranges views.
QList<SurfaceObject> sourcesSurface();

} // namespace forkscope::store
