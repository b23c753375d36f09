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

// Schema 12: factories added the same way. `source_store.factory_rule` holds an added
// factory's rule (wire::FactorySource::ruleText; NULL for a plain contract), and the `logs`
// and `transfer_events` views show the rows of a pending factory's children, as its own,
// only up to its checkpoint.
Migration sourceFactoriesMigration();

// The contract_sources and source_ranges views as the latest schema has them.
QList<SurfaceObject> sourcesSurface();

} // namespace forkscope::store
