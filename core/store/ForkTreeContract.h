#pragma once

#include "ContractSurface.h"
#include "Migrations.h"

#include <QString>

namespace forkscope::store {

// Schema 11: the branches rollbacks removed, and what each node reported as its head
// (docs/design.md, "The fork tree"). `orphan_block_store` keeps the header (number, hash,
// parent hash) of every block a rollback removed, with the reorg_events id of that rollback,
// copied in the rollback's own transaction and pruned to the last N rollbacks;
// `node_sighting_store` keeps a node's head (number and hash) each time it changes. The
// `orphaned_blocks` and `node_sightings` views serve them as lowercase 0x hex. Neither is
// read as canonical: `blocks` and every check read block_store only.
Migration forkTreeMigration();

// Schema 11's orphaned_blocks and node_sightings views.
QList<SurfaceObject> forkTreeSurface();

} // namespace forkscope::store
