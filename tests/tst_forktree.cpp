// The fork tree's layout (core/forktree/ForkTreeLayout): windows built by a small simulator of
// the store side (support/ForkTreeSim) from commits, rollbacks and node polls, read back as
// the tab would draw them: fork points, depths, parents, lanes, reasons, node marks, stubs and
// collapsed runs.
#include "ForkTreeSim.h"
#include "forktree/ForkTreeLayout.h"

#include <QtTest>
#include <algorithm>

using namespace forkscope;
using forktree::BoxKind;
using forktree::ForkTreeLayout;

namespace {

QString reasonLetter(forktree::BranchReason r)
{
    switch (r) {
    case forktree::BranchReason::HashMismatch:
        return QStringLiteral("h");
    case forktree::BranchReason::ParentMismatch:
        return QStringLiteral("p");
    case forktree::BranchReason::Absence:
        return QStringLiteral("a");
    case forktree::BranchReason::Repair:
        return QStringLiteral("r");
    }
    return QStringLiteral("?");
}

// "id:forkPoint+depth:reason/parent" per branch by reorg id; parent "s" (spine), "rN" or "?".
QString describeBranches(const ForkTreeLayout& l)
{
    QStringList out;
    for (const forktree::LayoutBranch& b : l.branches) {
        const QString parent = !b.parentKnown ? QStringLiteral("?")
                               : b.parentBranch < 0
                                   ? QStringLiteral("s")
                                   : QStringLiteral("r%1").arg(l.branches[b.parentBranch].reorgId);
        out.append(QStringLiteral("%1:%2+%3:%4/%5")
                       .arg(b.reorgId)
                       .arg(b.forkPoint)
                       .arg(b.depth)
                       .arg(reasonLetter(b.reason), parent));
    }
    std::sort(out.begin(), out.end(), [](const QString& a, const QString& b) {
        return a.section(QLatin1Char(':'), 0, 0).toInt() <
               b.section(QLatin1Char(':'), 0, 0).toInt();
    });
    return out.join(QLatin1Char(' '));
}

QString kindName(BoxKind k)
{
    switch (k) {
    case BoxKind::Spine:
        return QStringLiteral("spine");
    case BoxKind::Orphan:
        return QStringLiteral("orphan");
    case BoxKind::Stub:
        return QStringLiteral("stub");
    case BoxKind::Ahead:
        return QStringLiteral("ahead");
    }
    return {};
}

// "node@number:kind" for every node mark, sorted.
QString describeMarks(const ForkTreeLayout& l)
{
    QStringList out;
    for (const forktree::LayoutBox& b : l.boxes)
        for (const int n : b.nodes)
            out.append(QStringLiteral("%1@%2:%3")
                           .arg(l.nodes[n].name)
                           .arg(b.number)
                           .arg(kindName(b.kind)));
    out.sort();
    return out.join(QLatin1Char(' '));
}

QString describeCollapsed(const ForkTreeLayout& l)
{
    QStringList out;
    for (const forktree::LayoutColumn& c : l.columns)
        if (c.collapsed())
            out.append(QStringLiteral("%1-%2").arg(c.first).arg(c.last));
    return out.join(QLatin1Char(' '));
}

ForkTreeLayout layoutOf(const QString& script, quint64 from = 0, quint64 to = 0)
{
    lab::ForkTreeSim sim;
    QString error;
    if (!sim.run(script, &error))
        qFatal("%s", qPrintable(error));
    return forktree::layoutForkTree(to == 0 ? sim.window() : sim.window(from, to));
}

// Two branches share a lane only where their columns do not meet; a child is never in its
// parent's lane; every box sits in its branch's lane; lanes above the spine only.
void checkLanes(const ForkTreeLayout& l)
{
    for (int i = 0; i < l.branches.size(); ++i) {
        const forktree::LayoutBranch& a = l.branches[i];
        QVERIFY(a.lane >= 1);
        QVERIFY(a.lane <= l.maxLane);
        if (a.parentBranch >= 0)
            QVERIFY(l.branches[a.parentBranch].lane != a.lane);
        for (int j = i + 1; j < l.branches.size(); ++j) {
            const forktree::LayoutBranch& b = l.branches[j];
            if (a.lane == b.lane)
                QVERIFY2(a.lastColumn < b.forkColumn || b.lastColumn < a.forkColumn,
                         qPrintable(QStringLiteral("reorgs %1 and %2 overlap in lane %3")
                                        .arg(a.reorgId)
                                        .arg(b.reorgId)
                                        .arg(a.lane)));
        }
    }
    for (const forktree::LayoutBox& b : l.boxes)
        if (b.kind == BoxKind::Orphan)
            QCOMPARE(b.lane, l.branches[b.branch].lane);
}

} // namespace

class TestForkTree : public QObject
{
    Q_OBJECT
private slots:
    void branches_data();
    void branches();
    void lanes_data();
    void lanes();
    void nodeMarks_data();
    void nodeMarks();
    void collapsedRuns_data();
    void collapsedRuns();
    void coordinates();
};

void TestForkTree::branches_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<quint64>("from");
    QTest::addColumn<quint64>("to");
    QTest::addColumn<QString>("expected");
    const QString offBranch =
        QStringLiteral("commit 110; rollback 100 hash; commit 5; rollback 102 parent; commit 4;"
                       "rollback 100 absence; commit 8");
    QTest::newRow("one rollback") << "commit 120; rollback 100 hash; commit 15" << quint64(0)
                                  << quint64(0) << "1:100+20:h/s";
    // The second rollback's fork block (102) is itself removed by the third: that branch forks
    // off the third's, not off the spine.
    QTest::newRow("branch off a branch")
        << offBranch << quint64(0) << quint64(0) << "1:100+10:h/s 2:102+3:p/r3 3:100+6:a/s";
    QTest::newRow("a repair") << "commit 60; repair 50; commit 2" << quint64(0) << quint64(0)
                              << "1:50+10:r/s";
    // Retention drops the oldest rollbacks first: the child goes before its parent.
    QTest::newRow("retention drops the oldest")
        << offBranch + "; prune 1" << quint64(0) << quint64(0) << "2:102+3:p/r3 3:100+6:a/s";
    QTest::newRow("retention drops a child")
        << offBranch + "; prune 2" << quint64(0) << quint64(0) << "3:100+6:a/s";
    QTest::newRow("retention drops all")
        << offBranch + "; prune 3" << quint64(0) << quint64(0) << "";
    QTest::newRow("outside the window")
        << "commit 120; rollback 100 hash; commit 3000; rollback 3050 parent; commit 10"
        << quint64(2000) << quint64(3100) << "2:3050+50:p/s";
    // A repair's blocks come back with the same hashes: a later branch forking at one of
    // them forks off the spine.
    QTest::newRow("fork on a repaired block")
        << "commit 60; repair 50; rollback 55 hash; commit 3" << quint64(0) << quint64(0)
        << "1:50+10:r/s 2:55+5:h/s";
}

void TestForkTree::branches()
{
    QFETCH(QString, script);
    QFETCH(quint64, from);
    QFETCH(quint64, to);
    QFETCH(QString, expected);
    const ForkTreeLayout l = layoutOf(script, from, to);
    QCOMPARE(describeBranches(l), expected);
    checkLanes(l);
    // Each branch's boxes: its depth, consecutive numbers from the fork point up.
    for (int i = 0; i < l.branches.size(); ++i) {
        QVector<quint64> numbers;
        for (const forktree::LayoutBox& b : l.boxes)
            if (b.branch == i)
                numbers.append(b.number);
        QCOMPARE(numbers.size(), l.branches[i].depth);
        for (int k = 0; k < numbers.size(); ++k)
            QCOMPARE(numbers[k], l.branches[i].forkPoint + 1 + quint64(k));
    }
}

void TestForkTree::lanes_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("expectedLanes"); // "reorgId:lane", by reorg id
    QTest::newRow("overlapping, then apart")
        << "commit 100; rollback 90 hash; commit 10; rollback 95 hash; commit 30;"
           "rollback 120 parent; commit 2"
        << "1:1 2:2 3:1";
    QTest::newRow("branch off a branch")
        << "commit 110; rollback 100 hash; commit 5; rollback 102 parent; commit 4;"
           "rollback 100 absence; commit 8"
        << "1:1 2:3 3:2";
    for (const quint32 seed : {7u, 11u, 1234u})
        QTest::newRow(qPrintable(QStringLiteral("random storm %1").arg(seed)))
            << lab::ForkTreeSim::stormScript(seed, 60) << QString();
}

void TestForkTree::lanes()
{
    QFETCH(QString, script);
    QFETCH(QString, expectedLanes);
    lab::ForkTreeSim sim;
    QVERIFY(sim.run(script));
    forktree::ForkTreeWindow w = sim.window();
    const ForkTreeLayout l = forktree::layoutForkTree(w);
    checkLanes(l);
    if (QTest::currentTestFailed())
        return;
    QMap<qint64, int> lanes;
    for (const forktree::LayoutBranch& b : l.branches)
        lanes.insert(b.reorgId, b.lane);
    if (!expectedLanes.isEmpty()) {
        QStringList got;
        for (auto it = lanes.cbegin(); it != lanes.cend(); ++it)
            got.append(QStringLiteral("%1:%2").arg(it.key()).arg(it.value()));
        QCOMPARE(got.join(QLatin1Char(' ')), expectedLanes);
    }
    // Stable: the order the reader lists branches in changes nothing.
    std::reverse(w.branches.begin(), w.branches.end());
    const ForkTreeLayout again = forktree::layoutForkTree(w);
    for (const forktree::LayoutBranch& b : again.branches)
        QCOMPARE(b.lane, lanes.value(b.reorgId));
}

void TestForkTree::nodeMarks_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<QString>("marks");
    QTest::addColumn<QString>("lagging");
    QTest::addColumn<int>("branches");
    QTest::newRow("a lagging node sits on the spine") << "commit 50; poll a 50; poll b 44"
                                                      << "a@50:spine b@44:spine"
                                                      << "b" << 0;
    // The node saw the branch the indexer later rolled back: a real reorg, marked on it.
    QTest::newRow("a node on the orphaned branch")
        << "commit 50; poll a 50; rollback 45 hash; commit 7"
        << "a@50:orphan"
        << "" << 1;
    // A head on no branch we know: that node's own stub, not a reorg.
    QTest::newRow("a false reorg") << "commit 50; own b 48; poll a 50"
                                   << "a@50:spine b@48:stub"
                                   << "" << 0;
    QTest::newRow("a node ahead") << "commit 50; own c 53; poll a 50"
                                  << "a@50:spine c@53:ahead"
                                  << "" << 0;
    QTest::newRow("a repaired block is the spine's") << "commit 60; repair 50; poll a 55"
                                                     << "a@55:spine"
                                                     << "a" << 1;
    QTest::newRow("two nodes on one block") << "commit 20; poll a 18; poll b 18; commit 1"
                                            << "a@18:spine b@18:spine"
                                            << "a b" << 0;
}

void TestForkTree::nodeMarks()
{
    QFETCH(QString, script);
    QFETCH(QString, marks);
    QFETCH(QString, lagging);
    QFETCH(int, branches);
    const ForkTreeLayout l = layoutOf(script);
    QCOMPARE(describeMarks(l), marks);
    QStringList lag;
    for (const forktree::LayoutNode& n : l.nodes)
        if (n.lagging)
            lag.append(n.name);
    QCOMPARE(lag.join(QLatin1Char(' ')), lagging);
    QCOMPARE(int(l.branches.size()), branches);
    // Stubs and heads ahead below the spine, everything else on or above it.
    for (const forktree::LayoutBox& b : l.boxes) {
        const bool own = b.kind == BoxKind::Stub || b.kind == BoxKind::Ahead;
        QCOMPARE(b.lane < 0, own);
    }
}

void TestForkTree::collapsedRuns_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<quint64>("from");
    QTest::addColumn<quint64>("to");
    QTest::addColumn<QString>("collapsed");
    QTest::newRow("a straight run") << "commit 100" << quint64(0) << quint64(0) << "4-96";
    QTest::newRow("a short run stays")
        << "commit 30; rollback 15 hash; commit 16" << quint64(0) << quint64(0) << "";
    // Past 4,096 blocks the reader sends only the spine near what is interesting: its gaps
    // collapse, one of them between the branch's top and the head.
    QTest::newRow("the reader's gaps") << "commit 5010; rollback 5000 hash; commit 20" << quint64(0)
                                       << quint64(0) << "5-4995 5011-5015";
    QTest::newRow("a sighting keeps its blocks")
        << "commit 200; poll a 100" << quint64(0) << quint64(0) << "4-96 104-196";
}

void TestForkTree::collapsedRuns()
{
    QFETCH(QString, script);
    QFETCH(quint64, from);
    QFETCH(quint64, to);
    QFETCH(QString, collapsed);
    const ForkTreeLayout l = layoutOf(script, from, to);
    QCOMPARE(describeCollapsed(l), collapsed);
    // Columns tile the numbers with no hole and no overlap.
    for (int c = 1; c < l.columns.size(); ++c) {
        QCOMPARE(l.columns[c].first, l.columns[c - 1].last + 1);
        QCOMPARE(l.columns[c].x, l.columns[c - 1].x + l.columns[c - 1].width);
    }
}

void TestForkTree::coordinates()
{
    const ForkTreeLayout l = layoutOf(QStringLiteral("commit 5010; rollback 5000 hash; commit 20"));
    for (const quint64 n : {0ull, 3ull, 5ull, 100ull, 4995ull, 5005ull, 5013ull, 5020ull, 5100ull})
        QCOMPARE(l.numberAt(l.xOf(n)), n);
    QVERIFY(l.xOf(100) < l.xOf(4000));
    const int c = l.columnUnder(l.xOf(2000));
    QVERIFY(c >= 0);
    QVERIFY(l.columns[c].collapsed());
    QCOMPARE(l.columns[c].count(), quint64(4991));
    const QVector<int> seen =
        l.branchesOverlapping(l.columnAtOrBefore(5003), l.columnAtOrBefore(5004));
    QCOMPARE(seen.size(), 1);
    QVERIFY(l.branchesOverlapping(0, 2).isEmpty());
}

QTEST_GUILESS_MAIN(TestForkTree)
#include "tst_forktree.moc"
