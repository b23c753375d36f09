#include "forktree/ForkTreeLayout.h"

#include <QHash>
#include <algorithm>
#include <map>

namespace forkscope::forktree {

namespace {

struct BlockRef
{
    int branch = -1; // -1: the spine
    quint64 number = 0;
};

// The canonical numbers worth a column: those near something to see, and every short run
// between two of them (collapsing three blocks saves nothing and hides them).
QVector<quint64> shownSpine(const QVector<TreeBlock>& canonical, QVector<quint64> interest)
{
    QVector<quint64> shown;
    if (canonical.isEmpty())
        return shown;
    interest.append(canonical.front().number);
    interest.append(canonical.back().number);
    std::sort(interest.begin(), interest.end());
    const auto nearInterest = [&](quint64 n) {
        const auto it =
            std::lower_bound(interest.begin(), interest.end(),
                             n > ForkTreeLayout::kContext ? n - ForkTreeLayout::kContext : 0);
        return it != interest.end() && *it <= n + ForkTreeLayout::kContext;
    };
    QVector<bool> keep(canonical.size());
    for (qsizetype i = 0; i < canonical.size(); ++i)
        keep[i] = nearInterest(canonical[i].number);
    // Unhide a short hidden run of consecutive spine blocks.
    for (qsizetype i = 0; i < canonical.size();) {
        if (keep[i]) {
            ++i;
            continue;
        }
        qsizetype j = i;
        while (j + 1 < canonical.size() && !keep[j + 1] &&
               canonical[j + 1].number == canonical[j].number + 1)
            ++j;
        const quint64 run = canonical[j].number - canonical[i].number + 1;
        if (run < ForkTreeLayout::kCollapseRun)
            std::fill(keep.begin() + i, keep.begin() + j + 1, true);
        i = j + 1;
    }
    for (qsizetype i = 0; i < canonical.size(); ++i)
        if (keep[i])
            shown.append(canonical[i].number);
    return shown;
}

void buildColumns(ForkTreeLayout& layout, QVector<quint64> numbers)
{
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    double x = 0;
    for (qsizetype i = 0; i < numbers.size(); ++i) {
        if (i > 0 && numbers[i] > numbers[i - 1] + 1) {
            layout.columns.append(
                {numbers[i - 1] + 1, numbers[i] - 1, x, ForkTreeLayout::kCollapsedWidth});
            x += ForkTreeLayout::kCollapsedWidth;
        }
        layout.columns.append({numbers[i], numbers[i], x, 1});
        x += 1;
    }
}

// Greedy interval partitioning in a fixed order: the lowest lane whose last occupant ends
// before `first`. The same branches always get the same lanes, and no two overlap.
int takeLane(QVector<int>& laneEnds, int first, int last)
{
    for (int lane = 0; lane < laneEnds.size(); ++lane) {
        if (laneEnds[lane] < first) {
            laneEnds[lane] = last;
            return lane;
        }
    }
    laneEnds.append(last);
    return int(laneEnds.size()) - 1;
}

// One layout in the making: the window's blocks indexed by hash, then each step below in
// turn (they share what the earlier ones found).
class TreeBuilder
{
public:
    TreeBuilder(const ForkTreeWindow& window, ForkTreeLayout& layout) : w(window), l(layout) {}

    void indexBlocks();
    void readSightings();
    QVector<quint64> placeColumns();
    void addSpine(const QVector<quint64>& spine);
    void addBranches();
    void addStubs();
    void finish();

private:
    const ForkTreeWindow& w;
    ForkTreeLayout& l;
    // Every block we know, by hash. A hash is matched with its number too: a sighting that
    // names a known hash at another height matches nothing.
    QHash<chain::Hash32, BlockRef> known;
    QVector<const OrphanBranch*> kept; // branches with blocks, and their blocks in order
    QVector<QVector<TreeBlock>> branchBlocks;
    QHash<chain::Hash32, QVector<int>> marks;                        // known hash -> nodes
    std::map<std::pair<quint64, chain::Hash32>, QVector<int>> stubs; // (number, hash) -> nodes
    QVector<quint64> interest;
    QVector<LayoutBox> boxes;
};

void TreeBuilder::indexBlocks()
{
    known.reserve(w.canonical.size());
    for (const TreeBlock& b : w.canonical)
        known.insert(b.hash, {-1, b.number});
    for (const OrphanBranch& br : w.branches) {
        QVector<TreeBlock> blocks;
        for (const TreeBlock& b : br.blocks)
            if (b.number > br.forkPoint)
                blocks.append(b);
        std::stable_sort(blocks.begin(), blocks.end(), [](const TreeBlock& a, const TreeBlock& b) {
            return a.number < b.number;
        });
        if (blocks.isEmpty())
            continue;
        // A repair removes blocks that come back with the same hashes: the spine (and the
        // first branch that held a hash) keeps it.
        for (const TreeBlock& b : blocks)
            if (!known.contains(b.hash))
                known.insert(b.hash, {int(kept.size()), b.number});
        kept.append(&br);
        branchBlocks.append(blocks);
    }
}

// Sightings: on a known block, or a stub of the node's own.
void TreeBuilder::readSightings()
{
    QStringList names;
    for (const NodeSighting& s : w.sightings)
        names.append(s.node);
    names.sort();
    names.removeDuplicates();
    for (const QString& n : names)
        l.nodes.append({n, 0, false, 0});
    QVector<bool> highestOnSpine(names.size(), false);
    for (const NodeSighting& s : w.sightings) {
        const int node = int(names.indexOf(s.node));
        const auto it = known.constFind(s.hash);
        const bool isKnown = it != known.constEnd() && it->number == s.number;
        QVector<int>& list = isKnown ? marks[s.hash] : stubs[{s.number, s.hash}];
        if (!list.contains(node))
            list.append(node);
        LayoutNode& n = l.nodes[node];
        if (!isKnown)
            ++n.stubs;
        interest.append(s.number);
        if (s.number >= n.highest) {
            n.highest = s.number;
            highestOnSpine[node] = isKnown && it->branch == -1;
        }
    }
    for (qsizetype n = 0; n < l.nodes.size(); ++n)
        l.nodes[n].lagging = highestOnSpine[n] && l.nodes[n].highest < w.checkpoint;
}

// Columns: the spine near what is interesting, every orphaned block, every stub. Returns the
// spine numbers shown.
QVector<quint64> TreeBuilder::placeColumns()
{
    QVector<quint64> numbers;
    for (qsizetype i = 0; i < kept.size(); ++i) {
        interest.append(kept[i]->forkPoint);
        numbers.append(kept[i]->forkPoint);
        for (const TreeBlock& b : branchBlocks[i]) {
            interest.append(b.number);
            numbers.append(b.number);
        }
    }
    for (const auto& [key, nodes] : stubs)
        numbers.append(key.first);
    if (w.checkpoint > 0)
        interest.append(w.checkpoint);
    const QVector<quint64> spine = shownSpine(w.canonical, interest);
    numbers += spine;
    buildColumns(l, numbers);
    return spine;
}

// Spine boxes: both lists ascend, so one walk finds each block's column.
void TreeBuilder::addSpine(const QVector<quint64>& spine)
{
    qsizetype orphanBlocks = 0;
    for (const QVector<TreeBlock>& blocks : branchBlocks)
        orphanBlocks += blocks.size();
    boxes.reserve(spine.size() + orphanBlocks + qsizetype(stubs.size()));
    int c = 0;
    for (const TreeBlock& b : w.canonical) {
        while (c < l.columns.size() && l.columns[c].last < b.number)
            ++c;
        if (c == l.columns.size())
            break;
        if (l.columns[c].collapsed() || l.columns[c].first != b.number)
            continue;
        boxes.append({b.number, b.hash, BoxKind::Spine, c, 0, -1,
                      marks.isEmpty() ? QVector<int>() : marks.value(b.hash)});
    }
}

// Branches: parents first (a child forks at a later number than its parent), lanes in the
// order of their fork columns.
void TreeBuilder::addBranches()
{
    QVector<int> order(kept.size());
    QVector<int> forkColumns(kept.size());
    for (int i = 0; i < kept.size(); ++i) {
        order[i] = i;
        forkColumns[i] = l.columnAtOrBefore(kept[i]->forkPoint);
    }
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        return forkColumns[a] != forkColumns[b] ? forkColumns[a] < forkColumns[b]
                                                : kept[a]->reorgId < kept[b]->reorgId;
    });
    QVector<int> position(kept.size()); // kept index -> l.branches index
    for (int i = 0; i < order.size(); ++i)
        position[order[i]] = i;
    QVector<int> laneEnds;
    for (const int k : order) {
        const OrphanBranch& br = *kept[k];
        const QVector<TreeBlock>& blocks = branchBlocks[k];
        LayoutBranch lb;
        lb.reorgId = br.reorgId;
        lb.reason = br.reason;
        lb.forkPoint = br.forkPoint;
        lb.forkHash = br.forkHash;
        lb.depth = int(blocks.size());
        lb.forkColumn = forkColumns[k];
        lb.lastColumn = l.columnAtOrBefore(blocks.back().number);
        const auto parent = known.constFind(br.forkHash);
        lb.parentKnown = parent != known.constEnd() && parent->number == br.forkPoint;
        lb.parentBranch = lb.parentKnown && parent->branch >= 0 ? position[parent->branch] : -1;
        lb.lane = 1 + takeLane(laneEnds, lb.forkColumn, lb.lastColumn);
        const int index = int(l.branches.size());
        int column = l.columnAtOrBefore(blocks.front().number); // then one per block
        for (const TreeBlock& b : blocks) {
            // A hash the spine also holds (a repair) is marked on the spine only.
            const bool owner = !marks.isEmpty() && known.value(b.hash).branch == k;
            boxes.append({b.number, b.hash, BoxKind::Orphan, column++, lb.lane, index,
                          owner ? marks.value(b.hash) : QVector<int>()});
        }
        l.maxLane = std::max(l.maxLane, lb.lane);
        l.maxBranchSpan = std::max(l.maxBranchSpan, lb.lastColumn - lb.forkColumn + 1);
        l.branches.append(lb);
    }
}

// Stubs below the spine, in column order.
void TreeBuilder::addStubs()
{
    QVector<int> stubEnds;
    for (const auto& [key, nodes] : stubs) {
        const int c = l.columnAtOrBefore(key.first);
        const int lane = -1 - takeLane(stubEnds, c, c);
        const BoxKind kind = key.first > w.checkpoint ? BoxKind::Ahead : BoxKind::Stub;
        boxes.append({key.first, key.second, kind, c, lane, -1, nodes});
        l.minLane = std::min(l.minLane, lane);
    }
}

// Boxes by column, then lane, and where each column's boxes start.
void TreeBuilder::finish()
{
    // Sorted through an index: a box is large, and a stable sort's buffer would build as many.
    QVector<int> byPlace(boxes.size());
    for (int i = 0; i < byPlace.size(); ++i)
        byPlace[i] = i;
    std::sort(byPlace.begin(), byPlace.end(), [&](int a, int b) {
        const LayoutBox &x = boxes[a], &y = boxes[b];
        return x.column != y.column ? x.column < y.column
               : x.lane != y.lane   ? x.lane < y.lane
                                    : a < b;
    });
    l.boxes.reserve(boxes.size());
    for (const int i : byPlace)
        l.boxes.append(std::move(boxes[i]));
    l.columnFirstBox.resize(l.columns.size() + 1);
    int b = 0;
    for (int c = 0; c <= int(l.columns.size()); ++c) {
        while (b < l.boxes.size() && l.boxes[b].column < c)
            ++b;
        l.columnFirstBox[c] = b;
    }
}

} // namespace

ForkTreeLayout layoutForkTree(const ForkTreeWindow& window)
{
    ForkTreeLayout layout;
    layout.fromBlock = window.fromBlock;
    layout.toBlock = window.toBlock;
    layout.checkpoint = window.checkpoint;
    layout.reorgCount = window.reorgCount;
    TreeBuilder build(window, layout);
    build.indexBlocks();
    build.readSightings();
    build.addSpine(build.placeColumns());
    build.addBranches();
    build.addStubs();
    build.finish();
    return layout;
}

double ForkTreeLayout::width() const
{
    return columns.isEmpty() ? 0 : columns.back().x + columns.back().width;
}

int ForkTreeLayout::columnAtOrBefore(quint64 number) const
{
    const auto it = std::upper_bound(columns.begin(), columns.end(), number,
                                     [](quint64 n, const LayoutColumn& c) { return n < c.first; });
    return int(it - columns.begin()) - 1;
}

double ForkTreeLayout::xOf(quint64 number) const
{
    if (columns.isEmpty())
        return double(number);
    const int c = columnAtOrBefore(number);
    if (c < 0)
        return columns.front().x + 0.5 - double(columns.front().first - number);
    const LayoutColumn& col = columns[c];
    if (number > col.last)
        return col.x + col.width - 0.5 + double(number - col.last);
    if (!col.collapsed())
        return col.x + 0.5;
    return col.x + col.width * (double(number - col.first) + 0.5) / double(col.count());
}

quint64 ForkTreeLayout::numberAt(double x) const
{
    if (columns.isEmpty())
        return quint64(std::max(0.0, x));
    const LayoutColumn& front = columns.front();
    if (x < front.x) {
        const double back = front.x - x;
        return back >= double(front.first) ? 0 : front.first - quint64(back + 0.5);
    }
    const LayoutColumn& end = columns.back();
    if (x >= end.x + end.width)
        return end.last + quint64(x - (end.x + end.width)) + 1;
    const LayoutColumn& col = columns[columnUnder(x)];
    const double f = (x - col.x) / col.width;
    return std::min(col.last, col.first + quint64(f * double(col.count())));
}

int ForkTreeLayout::firstColumnFrom(double x) const
{
    const auto it =
        std::lower_bound(columns.begin(), columns.end(), x,
                         [](const LayoutColumn& c, double v) { return c.x + c.width <= v; });
    return int(it - columns.begin());
}

int ForkTreeLayout::columnUnder(double x) const
{
    const int c = firstColumnFrom(x);
    return c < columns.size() && columns[c].x <= x ? c : -1;
}

std::optional<int> ForkTreeLayout::findBox(const chain::Hash32& hash) const
{
    for (int i = 0; i < boxes.size(); ++i)
        if (boxes[i].hash == hash)
            return i;
    return std::nullopt;
}

std::optional<int> ForkTreeLayout::findBranch(qint64 reorgId) const
{
    for (int i = 0; i < branches.size(); ++i)
        if (branches[i].reorgId == reorgId)
            return i;
    return std::nullopt;
}

QVector<int> ForkTreeLayout::branchesOverlapping(int firstColumn, int lastColumn) const
{
    QVector<int> out;
    const int from = firstColumn - maxBranchSpan;
    auto it = std::lower_bound(branches.begin(), branches.end(), from,
                               [](const LayoutBranch& b, int c) { return b.forkColumn < c; });
    for (; it != branches.end() && it->forkColumn <= lastColumn; ++it)
        if (it->lastColumn >= firstColumn)
            out.append(int(it - branches.begin()));
    return out;
}

} // namespace forkscope::forktree
