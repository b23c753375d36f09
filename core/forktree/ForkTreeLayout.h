#pragma once

#include "forktree/ForkTreeWindow.h"

#include <QStringList>
#include <QVector>
#include <optional>

namespace forkscope::forktree {

// Where every box of a ForkTreeWindow goes, in layout units: one unit of x per column, one of
// y per lane. Pure data, built once per window; the painter and the hit test read it.
//
// Columns are the block numbers worth showing, ascending; a run of spine blocks that is not
// worth showing (or that the reader left out) is one collapsed column, "... 1,204 blocks ...".
// Lane 0 is the spine; the orphaned branches take lanes 1, 2, ... above it, and the blocks
// only one node reported (its own stub, or a head the indexer has not reached) take lanes
// -1, -2, ... below it, so a reorg the indexer lived through never reads as one node's view.

enum class BoxKind {
    Spine,  // a canonical block
    Orphan, // a block a rollback removed
    Stub,   // a head a node reported on no branch we know: that node's view, not a reorg
    Ahead,  // a head a node reported past the checkpoint: not indexed yet
};

struct LayoutBox
{
    quint64 number = 0;
    chain::Hash32 hash;
    BoxKind kind = BoxKind::Spine;
    int column = 0;
    int lane = 0;
    int branch = -1;    // index into ForkTreeLayout::branches (Orphan boxes only)
    QVector<int> nodes; // indices into ForkTreeLayout::nodes: the nodes whose head this is
};

struct LayoutBranch
{
    qint64 reorgId = 0;
    BranchReason reason = BranchReason::HashMismatch;
    quint64 forkPoint = 0;
    chain::Hash32 forkHash;
    int lane = 0;
    int parentBranch = -1;   // the branch it forks off; -1: the spine
    bool parentKnown = true; // false: forkHash is in no block of the window (pruned parent)
    int depth = 0;           // blocks removed
    int forkColumn = 0;      // the column of the fork point (its connector starts there)
    int lastColumn = 0;      // the column of its highest block
};

struct LayoutColumn
{
    quint64 first = 0; // block numbers the column stands for, inclusive
    quint64 last = 0;  // == first unless collapsed
    double x = 0;      // left edge
    double width = 1;
    bool collapsed() const { return last != first; }
    quint64 count() const { return last - first + 1; }
};

// A node's latest sightings as the tree reads them.
struct LayoutNode
{
    QString name;
    quint64 highest = 0;  // the highest head it reported
    bool lagging = false; // its highest head is a spine block behind the checkpoint
    int stubs = 0;        // heads it reported on no branch we know
};

struct ForkTreeLayout
{
    // A run of spine blocks with nothing to see longer than this collapses.
    static constexpr quint64 kCollapseRun = 12;
    // Spine blocks kept on either side of an interesting block (fork point, sighting, end).
    static constexpr quint64 kContext = 3;
    static constexpr double kCollapsedWidth = 4;

    quint64 fromBlock = 0;
    quint64 toBlock = 0;
    quint64 checkpoint = 0;
    qint64 reorgCount = 0;
    QVector<LayoutColumn> columns;  // ascending by number and x
    QVector<LayoutBox> boxes;       // sorted by column, then lane
    QVector<int> columnFirstBox;    // boxes of column c: [columnFirstBox[c], columnFirstBox[c+1])
    QVector<LayoutBranch> branches; // ascending by fork column, then reorg id
    QVector<LayoutNode> nodes;      // by name
    int maxLane = 0;                // highest branch lane (0: none)
    int minLane = 0;                // lowest stub lane (0: none)
    int maxBranchSpan = 0;          // widest branch in columns, for the visible-branch query

    double width() const;
    // The column holding `number`, or the nearest column before it (-1: before all).
    int columnAtOrBefore(quint64 number) const;
    // x of the centre of `number`'s place; numbers outside the columns continue at one unit
    // per block, so a view can pan past the ends of what was read.
    double xOf(quint64 number) const;
    // The block number at layout x (the inverse of xOf, clamped at 0).
    quint64 numberAt(double x) const;
    // Index of the column under x, or -1.
    int columnUnder(double x) const;
    // First column whose right edge is past x.
    int firstColumnFrom(double x) const;
    std::optional<int> findBox(const chain::Hash32& hash) const;
    std::optional<int> findBranch(qint64 reorgId) const;
    // Branches whose columns overlap [firstColumn, lastColumn].
    QVector<int> branchesOverlapping(int firstColumn, int lastColumn) const;
};

ForkTreeLayout layoutForkTree(const ForkTreeWindow& window);

} // namespace forkscope::forktree

Q_DECLARE_TYPEINFO(forkscope::forktree::LayoutBox, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(forkscope::forktree::LayoutBranch, Q_RELOCATABLE_TYPE);
Q_DECLARE_TYPEINFO(forkscope::forktree::LayoutColumn, Q_RELOCATABLE_TYPE);
