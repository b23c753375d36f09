#pragma once

#include "ForkTreeLimits.h"
#include "ForkTreeWindow.h"

#include <QString>

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::forktree {

// One window of the fork tree, read through the contract's surface on either store
// (`blocks`, `orphaned_blocks`, `node_sightings`, `reorg_events`), in one read snapshot.
// Bounded (ForkTreeLimits.h): the spine holds every canonical block of a window at most
// kFullSpineWindow wide, and of a wider one only the blocks within kSpineContext of a
// branch's fork point, of a sighting or of the window's ends; the newest `bounds` branches
// (and their blocks) and sightings touching the window, `truncated` when more were there.
// Throws StoreError, or ChainParseError for a stored hash that is not one.
struct ForkTreeBounds
{
    int maxBranches = kMaxBranches;
    int maxOrphanBlocks = kMaxOrphanBlocks;
    int maxSightings = kMaxSightings;
    int maxCanonicalBlocks = kMaxCanonicalBlocks;
};
ForkTreeWindow readForkTree(store::ContractReader& reader, const QString& environmentId,
                            const ForkTreeRequest& request, const ForkTreeBounds& bounds = {});
// The window of the environment's whole indexed range, from its lowest block to its
// checkpoint (the report's picture).
ForkTreeWindow readWholeForkTree(store::ContractReader& reader, const QString& environmentId,
                                 const ForkTreeBounds& bounds = {});

} // namespace forkscope::forktree
