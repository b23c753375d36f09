#pragma once

namespace forkscope::forktree {

// How much of the fork tree is kept (docs/design.md, "The fork tree").
// The branches of this many of the latest rollbacks (`--orphan-retention`).
constexpr long long kDefaultOrphanRetention = 10000;
// A rollback prunes at most this many older rollbacks' branches, and a node's new head at
// most this many of its oldest heads: pruning is bounded work per write, and a lowered
// retention is reached over the next writes.
constexpr int kPrunePerWrite = 16;

// How much one reply of the read service holds.
// A window this wide or narrower holds every canonical block; a wider one only those within
// kSpineContext blocks of a fork point, a sighting or the window's ends.
constexpr unsigned long long kFullSpineWindow = 4096;
constexpr unsigned long long kSpineContext = 4;
constexpr int kMaxBranches = 20000;
constexpr int kMaxOrphanBlocks = 200000;
constexpr int kMaxSightings = 20000;
constexpr int kMaxCanonicalBlocks = 200000;
constexpr int kMaxBlockRows = 5000;

} // namespace forkscope::forktree
