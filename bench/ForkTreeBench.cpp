#include "ForkTreeBench.h"
#include "forktree/ForkTreeCanvas.h"
#include "forktree/ForkTreeLayout.h"
#include "forktree/ForkTreePainter.h"
#include "forktree/ForkTreeView.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <vector>

namespace forkscope::bench {

namespace {

using forktree::ForkTreeWindow;
using forktree::OrphanBranch;
using forktree::TreeBlock;

chain::Hash32 hashOf(quint64 n, quint8 salt)
{
    std::array<std::uint8_t, 32> raw{};
    raw[0] = salt;
    for (int i = 31; i >= 24; --i, n >>= 8)
        raw[i] = std::uint8_t(n & 0xff);
    return chain::Hash32::fromRaw(raw);
}

// A chain of `blocks` blocks and `reorgs` branches (1 to 12 blocks each, every twentieth
// forking off the branch before it), cut into windows as the reader does: every spine block
// up to 4,096 blocks, beyond that only those near a fork point or an end.
class SyntheticTree
{
public:
    SyntheticTree(int reorgs, int blocks) : m_head(quint64(blocks))
    {
        QRandomGenerator rng(42);
        for (int i = 0; i < reorgs; ++i) {
            OrphanBranch b;
            b.reorgId = i + 1;
            b.reason = forktree::BranchReason(rng.bounded(4));
            const quint64 depth = 1 + rng.bounded(12);
            if (i % 20 == 19 && m_branches.back().blocks.size() > 1) {
                const OrphanBranch& parent = m_branches.back();
                b.forkPoint = parent.blocks.front().number;
                b.forkHash = parent.blocks.front().hash;
            } else {
                b.forkPoint = 1 + rng.bounded(quint64(blocks) - 20);
                b.forkHash = hashOf(b.forkPoint, 0);
            }
            for (quint64 k = 1; k <= depth; ++k)
                b.blocks.append({b.forkPoint + k, hashOf(b.forkPoint + k, quint8(1 + i % 250)),
                                 chain::Hash32()});
            m_branches.push_back(b);
        }
        std::stable_sort(
            m_branches.begin(), m_branches.end(),
            [](const OrphanBranch& a, const OrphanBranch& b) { return a.forkPoint < b.forkPoint; });
    }
    quint64 head() const { return m_head; }

    ForkTreeWindow window(quint64 from, quint64 to) const
    {
        ForkTreeWindow w;
        w.fromBlock = from;
        w.toBlock = std::min(to, m_head);
        w.checkpoint = m_head;
        w.reorgCount = qint64(m_branches.size());
        std::vector<quint64> interest{from, w.toBlock};
        // Branches touching the window: fork points at most 12 blocks before it.
        auto it =
            std::lower_bound(m_branches.begin(), m_branches.end(), from > 13 ? from - 13 : 0,
                             [](const OrphanBranch& b, quint64 n) { return b.forkPoint < n; });
        for (; it != m_branches.end() && it->forkPoint <= w.toBlock; ++it) {
            if (it->blocks.back().number < from)
                continue;
            w.branches.append(*it);
            interest.push_back(it->forkPoint);
        }
        std::sort(interest.begin(), interest.end());
        const auto add = [&](quint64 n) {
            if (n >= from && n <= w.toBlock &&
                (w.canonical.isEmpty() || w.canonical.back().number < n))
                w.canonical.append({n, hashOf(n, 0), n ? hashOf(n - 1, 0) : chain::Hash32()});
        };
        if (w.toBlock - from <= 4096) {
            for (quint64 n = from; n <= w.toBlock; ++n)
                add(n);
        } else {
            for (const quint64 i : interest)
                for (quint64 n = i > 4 ? i - 4 : 0; n <= i + 4; ++n)
                    add(n);
        }
        w.sightings.append({QStringLiteral("node-a"), m_head, hashOf(m_head, 0), {}});
        w.sightings.append({QStringLiteral("node-b"), m_head - 2, hashOf(m_head - 2, 0), {}});
        w.sightings.append({QStringLiteral("node-c"), m_head - 1, hashOf(m_head - 1, 0xee), {}});
        return w;
    }

private:
    quint64 m_head;
    std::vector<OrphanBranch> m_branches;
};

double ms(const QElapsedTimer& t)
{
    return double(t.nsecsElapsed()) / 1e6;
}

// This thread's CPU time: on a machine shared with other work the wall time of one paint
// swings, its CPU time much less.
double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

void panRounds(ui::ForkTreeCanvas* canvas, const char* what)
{
    constexpr int kRounds = 60;
    std::vector<double> times, cpu;
    for (int i = 0; i < kRounds; ++i) {
        QElapsedTimer t;
        t.start();
        const double c0 = cpuMs();
        canvas->panBy(i % 2 ? 37 : -41, 0);
        canvas->repaint();
        cpu.push_back(cpuMs() - c0);
        times.push_back(ms(t));
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu.begin(), cpu.end());
    std::printf("  pan, %s: median %.2f ms, max %.2f ms per interaction; CPU median %.2f ms, "
                "max %.2f ms (%d rounds; target < 16 ms)\n",
                what, times[times.size() / 2], times.back(), cpu[cpu.size() / 2], cpu.back(),
                kRounds);
}

} // namespace

void runForkTreeBench(int reorgs, int blocks)
{
    QElapsedTimer build;
    build.start();
    const SyntheticTree tree(reorgs, blocks);
    std::printf("fork tree: %d reorgs over %d blocks (built in %.0f ms)\n", reorgs, blocks,
                ms(build));

    ui::ForkTreeView view;
    view.resize(1280, 720);
    view.show();
    QApplication::processEvents();
    ui::ForkTreeCanvas* canvas = view.canvas();

    // Opening the tab: the read service lays out the head's window on its thread, the tab
    // paints it.
    forktree::ForkTreeRequest asked;
    QObject::connect(&view, &ui::ForkTreeView::windowWanted,
                     [&](const forktree::ForkTreeRequest& r) { asked = r; });
    view.showCheckpoint(tree.head());
    QElapsedTimer t;
    t.start();
    double c = cpuMs();
    const forktree::ForkTreeSnapshot head =
        forktree::laidOut(tree.window(asked.fromBlock, asked.toBlock));
    const double headLaid = ms(t), headLaidCpu = cpuMs() - c;
    t.restart();
    c = cpuMs();
    view.showTree(head);
    canvas->repaint();
    std::printf("  open at the head (%lld spine blocks, %lld branches): layout %.2f ms (CPU "
                "%.2f ms, read service thread), first paint %.2f ms (CPU %.2f ms, GUI thread)\n",
                static_cast<long long>(head.window.canonical.size()),
                static_cast<long long>(head.window.branches.size()), headLaid, headLaidCpu, ms(t),
                cpuMs() - c);
    panRounds(canvas, "at the head, boxes with text");

    // A 4,096-block window as a pan brings it: its layout, on the read service's thread.
    const ForkTreeWindow mid = tree.window(tree.head() / 2, tree.head() / 2 + 4096);
    t.restart();
    c = cpuMs();
    const forktree::ForkTreeLayout midLayout = forktree::layoutForkTree(mid);
    std::printf("  a 4,096-block window (%lld branches): layout %.2f ms (CPU %.2f ms)\n",
                static_cast<long long>(mid.branches.size()), ms(t), cpuMs() - c);

    // The whole chain zoomed out (jump to reorg, or the report's tree): laid out on the read
    // service's thread (the report's, on the engine's), painted on the GUI thread.
    t.restart();
    const ForkTreeWindow all = tree.window(0, tree.head());
    const double cut = ms(t);
    t.restart();
    c = cpuMs();
    forktree::ForkTreeLayout whole = forktree::layoutForkTree(all);
    const double laid = ms(t), laidCpu = cpuMs() - c;
    std::printf("  the whole chain (%lld spine blocks, %lld branches, %lld columns, %d lanes): "
                "window cut %.0f ms (the reader's side), layout %.2f ms (CPU %.2f ms)\n",
                static_cast<long long>(all.canonical.size()),
                static_cast<long long>(all.branches.size()),
                static_cast<long long>(whole.columns.size()), whole.maxLane, cut, laid, laidCpu);
    const ui::ForkTreeViewport fit = ui::ForkTreePainter::fit(canvas->rect(), whole);
    canvas->setTreeLayout(std::move(whole), 0);
    canvas->setViewport(fit);
    t.restart();
    c = cpuMs();
    canvas->repaint();
    std::printf("  the whole chain in view: paint %.2f ms (CPU %.2f ms)\n", ms(t), cpuMs() - c);
    panRounds(canvas, "whole chain in view, lines");
    ui::ForkTreeViewport mid1 = fit;
    mid1.columnPx = 4;
    canvas->setViewport(mid1);
    panRounds(canvas, "zoomed out to 4 px per block, boxes without text");
}

} // namespace forkscope::bench
