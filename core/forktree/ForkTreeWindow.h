#pragma once

#include "chain/Hash32.h"

#include <QDateTime>
#include <QMetaType>
#include <QString>
#include <QVector>

namespace forkscope::forktree {

// Why a branch left the canonical chain: the rollback's reason (reorg_events.reason).
enum class BranchReason { HashMismatch, ParentMismatch, Absence, Repair };

struct TreeBlock
{
    quint64 number = 0;
    chain::Hash32 hash;
    chain::Hash32 parentHash;
};

// Blocks one rollback removed, kept after the rollback within the retention. A branch can fork
// off another orphaned branch: forkHash then names a block of that branch, not of the spine.
struct OrphanBranch
{
    qint64 reorgId = 0; // reorg_events.id of the rollback that removed these blocks
    BranchReason reason = BranchReason::HashMismatch;
    quint64 forkPoint = 0;     // number of the last block this branch shares with its parent
    chain::Hash32 forkHash;    // hash of that block
    QVector<TreeBlock> blocks; // ascending, the first at forkPoint + 1
    QDateTime rolledBackAt;
};

// One node health poll's view of the head, per node.
struct NodeSighting
{
    QString node; // the node's label, as the health panel names it
    quint64 number = 0;
    chain::Hash32 hash;
    QDateTime seenAt;
};

// What the Fork tree tab asks for: a window of block numbers.
struct ForkTreeRequest
{
    quint64 fromBlock = 0;
    quint64 toBlock = 0;
};

// An immutable snapshot of the tree over [fromBlock, toBlock], read in pages off the GUI
// thread. Branches and sightings are those touching the window.
struct ForkTreeWindow
{
    quint64 fromBlock = 0;
    quint64 toBlock = 0;
    quint64 checkpoint = 0;       // the environment's checkpoint: the spine's top
    quint64 firstBlock = 0;       // the lowest block the environment holds
    QVector<TreeBlock> canonical; // the spine's blocks in the window, ascending
    QVector<OrphanBranch> branches;
    QVector<NodeSighting> sightings; // the latest sighting per node and head hash
    qint64 reorgCount = 0;           // every rollback kept, for "jump to reorg #K"
    bool truncated = false;          // more branches, blocks or sightings than one reply holds
};

} // namespace forkscope::forktree

Q_DECLARE_METATYPE(forkscope::forktree::ForkTreeRequest)
Q_DECLARE_METATYPE(forkscope::forktree::ForkTreeWindow)
