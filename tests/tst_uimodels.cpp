// The Nodes and Environments dock models, fed snapshots the way the engine sends them: each
// refresh updates rows in place (changed cells only, rows inserted, moved or removed only
// when the set changes), so a selection survives it, and both models keep Qt's model
// contract (QAbstractItemModelTester) throughout.
#include "Palette.h"
#include "engine/EngineStatus.h"
#include "models/EnvironmentListModel.h"
#include "models/NodeTableModel.h"

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest>
#include <ctime>

using namespace forkscope;
using engine::EngineStatus;
using health::NodeState;
using ui::EnvironmentListModel;
using ui::NodeTableModel;

namespace {

// "a:1:100" is node http://a in state 1 (caught up) at head 100; a head of 0 is unknown.
EngineStatus nodes(const QStringList& specs)
{
    EngineStatus s;
    for (const QString& spec : specs) {
        const QStringList f = spec.split(':');
        health::NodeHealth n;
        n.url = QStringLiteral("http://") + f.value(0);
        n.state = NodeState(f.value(1, QStringLiteral("1")).toInt());
        if (const quint64 head = f.value(2).toULongLong())
            n.head = head;
        n.latencyMs = 5;
        s.health.nodes << n;
    }
    return s;
}

// "e2:31337:t2" is live environment e2; "e1:31337:t1:t3" was archived at t3.
QList<EngineStatus::EnvironmentEntry> environments(const QStringList& specs)
{
    QList<EngineStatus::EnvironmentEntry> out;
    for (const QString& spec : specs) {
        const QStringList f = spec.split(':');
        out << EngineStatus::EnvironmentEntry{f.value(0), f.value(1).toULongLong(), f.value(2),
                                              f.value(3)};
    }
    return out;
}

QStringList column(const QAbstractItemModel& m, int c, int role = Qt::DisplayRole)
{
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r)
        out << m.index(r, c).data(role).toString();
    return out;
}

// Rows currently selected in `view`, by row number.
QList<int> selectedRows(const QTableView& view)
{
    QList<int> rows;
    for (const QModelIndex& i : view.selectionModel()->selectedRows())
        rows << i.row();
    return rows;
}

struct Spies
{
    explicit Spies(QAbstractItemModel* m)
        : inserted(m, &QAbstractItemModel::rowsInserted),
          removed(m, &QAbstractItemModel::rowsRemoved), moved(m, &QAbstractItemModel::rowsMoved),
          changed(m, &QAbstractItemModel::dataChanged), reset(m, &QAbstractItemModel::modelReset)
    {
    }
    QSignalSpy inserted, removed, moved, changed, reset;
};

} // namespace

class TestUiModels : public QObject
{
    Q_OBJECT
private slots:
    void environmentTimesAreLocalWithUtcOnHover();
    void nodeRowsFollowTheSnapshot_data();
    void nodeRowsFollowTheSnapshot();
    void nodeCellsReportOnlyWhatChanged();
    void nodeRolesAndCounters();
    void nodeSelectionSurvivesRefresh();
    void environmentRowsFollowTheSnapshot_data();
    void environmentRowsFollowTheSnapshot();
    void environmentRolesAndSelection();
};

void TestUiModels::nodeRowsFollowTheSnapshot_data()
{
    QTest::addColumn<QStringList>("before");
    QTest::addColumn<QStringList>("after");
    QTest::addColumn<QStringList>("urls"); // the rows afterwards, in order
    QTest::addColumn<int>("inserted");
    QTest::addColumn<int>("removed");
    QTest::addColumn<int>("moved");
    QTest::addColumn<int>("changed"); // dataChanged signals

    const QStringList ab{"a:1:100", "b:1:100"};
    QTest::newRow("first snapshot")
        << QStringList{} << ab << QStringList{"a", "b"} << 2 << 0 << 0 << 0;
    QTest::newRow("same snapshot") << ab << ab << QStringList{"a", "b"} << 0 << 0 << 0 << 0;
    QTest::newRow("a head moves") << ab << QStringList{"a:1:101", "b:1:100"}
                                  << QStringList{"a", "b"} << 0 << 0 << 0 << 1;
    QTest::newRow("node added") << ab << QStringList{"a:1:100", "b:1:100", "c:2:90"}
                                << QStringList{"a", "b", "c"} << 1 << 0 << 0 << 0;
    QTest::newRow("node removed") << QStringList{"a:1:100", "b:1:100", "c:1:100"}
                                  << QStringList{"a:1:100", "c:1:100"} << QStringList{"a", "c"} << 0
                                  << 1 << 0 << 0;
    QTest::newRow("node replaced")
        << ab << QStringList{"a:1:100", "c:1:100"} << QStringList{"a", "c"} << 1 << 1 << 0 << 0;
    QTest::newRow("reordered") << QStringList{"a:1:100", "b:1:100", "c:1:100"}
                               << QStringList{"c:1:100", "a:1:100", "b:1:100"}
                               << QStringList{"c", "a", "b"} << 0 << 0 << 1 << 0;
    QTest::newRow("b goes offline")
        << ab << QStringList{"a:1:100", "b:3:0"} << QStringList{"a", "b"} << 0 << 0 << 0 << 1;
    // A snapshot before the first health poll says nothing about the nodes.
    QTest::newRow("no nodes in the snapshot")
        << ab << QStringList{} << QStringList{"a", "b"} << 0 << 0 << 0 << 0;
}

void TestUiModels::nodeRowsFollowTheSnapshot()
{
    QFETCH(QStringList, before);
    QFETCH(QStringList, after);
    QFETCH(QStringList, urls);
    QFETCH(int, inserted);
    QFETCH(int, removed);
    QFETCH(int, moved);
    QFETCH(int, changed);
    NodeTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.applyStatus(nodes(before));
    Spies spies(&model);
    model.applyStatus(nodes(after));
    QCOMPARE(spies.inserted.size(), inserted);
    QCOMPARE(spies.removed.size(), removed);
    QCOMPARE(spies.moved.size(), moved);
    QCOMPARE(spies.changed.size(), changed);
    QCOMPARE(spies.reset.size(), 0); // never a reset: that would drop the selection
    QStringList expected;
    for (const QString& u : urls)
        expected << QStringLiteral("http://") + u;
    QCOMPARE(column(model, NodeTableModel::Url), expected);
    // Every row says what the snapshot said about its node.
    const EngineStatus last = nodes(after.isEmpty() ? before : after);
    for (int r = 0; r < model.rowCount(); ++r) {
        const health::NodeHealth& n = last.health.nodes[r];
        QCOMPARE(model.text(r, NodeTableModel::State), health::nodeStateName(n.state));
        QCOMPARE(model.text(r, NodeTableModel::Head),
                 n.head ? QString::number(*n.head) : QStringLiteral("unknown"));
        QCOMPARE(model.index(r, NodeTableModel::Url).data(NodeTableModel::NodeStateRole).toInt(),
                 int(n.state));
    }
}

void TestUiModels::nodeCellsReportOnlyWhatChanged()
{
    NodeTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.applyStatus(nodes({"a:1:100", "b:1:100"}));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    const auto range = [&](int i) {
        const auto tl = changed.at(i).at(0).value<QModelIndex>();
        const auto br = changed.at(i).at(1).value<QModelIndex>();
        return QList<int>{tl.row(), tl.column(), br.row(), br.column()};
    };
    // A head moves: that cell alone.
    model.applyStatus(nodes({"a:1:100", "b:1:101"}));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(range(0), (QList<int>{1, NodeTableModel::Head, 1, NodeTableModel::Head}));
    // Lagging: the state changes, and NodeStateRole with it on every column of the row.
    model.applyStatus(nodes({"a:2:100", "b:1:101"}));
    QCOMPARE(changed.size(), 2);
    QCOMPARE(range(1), (QList<int>{0, 0, 0, NodeTableModel::ColumnCount - 1}));
    // Two cells apart: one signal spanning both.
    EngineStatus s = nodes({"a:2:105", "b:1:101"});
    s.health.nodes[0].lastError = QStringLiteral("timeout");
    model.applyStatus(s);
    QCOMPARE(changed.size(), 3);
    QCOMPARE(range(2), (QList<int>{0, NodeTableModel::Head, 0, NodeTableModel::Error}));
}

void TestUiModels::nodeRolesAndCounters()
{
    NodeTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    EngineStatus s = nodes({"a:1:100", "b:5:98"});
    s.endpoint = QStringLiteral("http://a"); // the indexer reads a
    s.truncationHalvings = 3;
    s.suspectedTruncations = 1;
    s.indexerTimeouts = 4;
    s.inconsistencies = 2;
    s.health.nodes[0].timeouts = 1;
    s.health.nodes[1].timeouts = 6;
    s.health.nodes[1].droppedLogs = 2;
    s.health.nodes[1].lastDropBlock = 77;
    s.health.nodes[1].lastError = QStringLiteral("fewer logs than the bloom");
    model.applyStatus(s);
    // The wire's counters are the indexed node's; the other node's show "-".
    QCOMPARE(column(model, NodeTableModel::Halvings), (QStringList{"3", "-"}));
    QCOMPARE(column(model, NodeTableModel::Truncations), (QStringList{"1", "-"}));
    QCOMPARE(column(model, NodeTableModel::Inconsistent), (QStringList{"2", "-"}));
    // Timeouts: health polls for every node, plus the indexer's own on its node.
    QCOMPARE(column(model, NodeTableModel::Timeouts), (QStringList{"5", "6"}));
    QCOMPARE(column(model, NodeTableModel::Latency), (QStringList{"5", "5"}));
    QCOMPARE(model.text(1, NodeTableModel::State),
             QStringLiteral("dropping logs (2 times, last at block 77)"));
    QCOMPARE(model.text(1, NodeTableModel::Error), QStringLiteral("fewer logs than the bloom"));
    // The state cell carries the Palette's colour and meaning; other cells do not.
    for (int r = 0; r < 2; ++r) {
        const auto state = NodeState(
            model.index(r, NodeTableModel::Head).data(NodeTableModel::NodeStateRole).toInt());
        const QModelIndex cell = model.index(r, NodeTableModel::State);
        QCOMPARE(cell.data(Qt::BackgroundRole).value<QBrush>().color(),
                 ui::Palette::nodeState(state));
        QCOMPARE(cell.data(Qt::ToolTipRole).toString(), ui::Palette::nodeStateMeaning(state));
        QVERIFY(!model.index(r, NodeTableModel::Head).data(Qt::BackgroundRole).isValid());
    }
    QCOMPARE(model.index(0, NodeTableModel::State).data(Qt::BackgroundRole).value<QBrush>().color(),
             ui::Palette::nodeState(NodeState::CaughtUp));
    QCOMPARE(model.headerData(NodeTableModel::State, Qt::Horizontal).toString(),
             QStringLiteral("state"));
    QCOMPARE(model.headerData(NodeTableModel::Timeouts, Qt::Horizontal).toString(),
             QStringLiteral("timeouts"));
    // The indexer's counters move: only the indexed node's cells change.
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    s.indexerTimeouts = 9;
    model.applyStatus(s);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).value<QModelIndex>(), model.index(0, NodeTableModel::Timeouts));
    QCOMPARE(model.text(0, NodeTableModel::Timeouts), QStringLiteral("10"));
    // The indexer moves to b: the counters follow it.
    s.endpoint = QStringLiteral("http://b");
    model.applyStatus(s);
    QCOMPARE(column(model, NodeTableModel::Halvings), (QStringList{"-", "3"}));
    QCOMPARE(column(model, NodeTableModel::Timeouts), (QStringList{"1", "15"}));
}

void TestUiModels::nodeSelectionSurvivesRefresh()
{
    NodeTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTableView view;
    view.setModel(&model);
    view.setSelectionBehavior(QAbstractItemView::SelectRows);
    model.applyStatus(nodes({"a:1:100", "b:1:100", "c:1:100"}));
    view.selectRow(1); // b
    view.setCurrentIndex(model.index(1, NodeTableModel::Head));
    // Refreshed many times over, heads moving and b's state changing: still b.
    for (quint64 head = 101; head < 110; ++head)
        model.applyStatus(nodes({QStringLiteral("a:1:%1").arg(head),
                                 QStringLiteral("b:%1:%2").arg(head % 2 ? 2 : 1).arg(head - 3),
                                 QStringLiteral("c:1:%1").arg(head)}));
    QCOMPARE(selectedRows(view), (QList<int>{1}));
    QCOMPARE(view.currentIndex(), model.index(1, NodeTableModel::Head));
    // A node appears before b and another goes away: the selection moves with b's row.
    model.applyStatus(nodes({"x:1:110", "a:1:110", "b:1:107"}));
    QCOMPARE(selectedRows(view), (QList<int>{2}));
    QCOMPARE(model.text(2, NodeTableModel::Url), QStringLiteral("http://b"));
    QCOMPARE(view.currentIndex(), model.index(2, NodeTableModel::Head));
    // b itself goes away: nothing is selected rather than some other node.
    model.applyStatus(nodes({"x:1:111", "a:1:111"}));
    QVERIFY(selectedRows(view).isEmpty());
}

void TestUiModels::environmentRowsFollowTheSnapshot_data()
{
    QTest::addColumn<QStringList>("before");
    QTest::addColumn<QStringList>("after");
    QTest::addColumn<QStringList>("states"); // the State column afterwards
    QTest::addColumn<int>("inserted");
    QTest::addColumn<int>("removed");
    QTest::addColumn<int>("moved");
    QTest::addColumn<int>("changed");

    const QStringList live{"e1:31337:t1"};
    QTest::newRow("first snapshot")
        << QStringList{} << live << QStringList{"live"} << 1 << 0 << 0 << 0;
    QTest::newRow("same list") << live << live << QStringList{"live"} << 0 << 0 << 0 << 0;
    // A lab reset: the new environment comes first, the old one is archived in place.
    QTest::newRow("lab reset") << live << QStringList{"e2:31337:t2", "e1:31337:t1:t3"}
                               << QStringList{"live", "archived t3"} << 1 << 0 << 0 << 1;
    QTest::newRow("environment gone")
        << QStringList{"e2:31337:t2", "e1:31337:t1:t3"} << QStringList{"e2:31337:t2"}
        << QStringList{"live"} << 0 << 1 << 0 << 0;
    QTest::newRow("reordered") << QStringList{"e1:1:t1", "e2:1:t2"}
                               << QStringList{"e2:1:t2", "e1:1:t1"} << QStringList{"live", "live"}
                               << 0 << 0 << 1 << 0;
    // A snapshot without the list says nothing about it.
    QTest::newRow("no list in the snapshot")
        << live << QStringList{} << QStringList{"live"} << 0 << 0 << 0 << 0;
}

void TestUiModels::environmentRowsFollowTheSnapshot()
{
    QFETCH(QStringList, before);
    QFETCH(QStringList, after);
    QFETCH(QStringList, states);
    QFETCH(int, inserted);
    QFETCH(int, removed);
    QFETCH(int, moved);
    QFETCH(int, changed);
    EnvironmentListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    EngineStatus s;
    s.environments = environments(before);
    model.applyStatus(s);
    Spies spies(&model);
    s.environments = environments(after);
    model.applyStatus(s);
    QCOMPARE(spies.inserted.size(), inserted);
    QCOMPARE(spies.removed.size(), removed);
    QCOMPARE(spies.moved.size(), moved);
    QCOMPARE(spies.changed.size(), changed);
    QCOMPARE(spies.reset.size(), 0);
    QCOMPARE(column(model, EnvironmentListModel::State), states);
    const auto expected = environments(after.isEmpty() ? before : after);
    QCOMPARE(model.rowCount(), expected.size());
    for (int r = 0; r < model.rowCount(); ++r) {
        QCOMPARE(model.environmentId(r), expected[r].id);
        QCOMPARE(model.text(r, EnvironmentListModel::ChainId),
                 QString::number(expected[r].chainId));
        QCOMPARE(model.text(r, EnvironmentListModel::Created), expected[r].createdAt);
        QCOMPARE(model.index(r, EnvironmentListModel::Id)
                     .data(EnvironmentListModel::ArchivedRole)
                     .toBool(),
                 !expected[r].archivedAt.isEmpty());
    }
}

void TestUiModels::environmentRolesAndSelection()
{
    EnvironmentListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTableView view;
    view.setModel(&model);
    view.setSelectionBehavior(QAbstractItemView::SelectRows);
    model.setEnvironments(environments({"e1:31337:t1"}));
    QVERIFY(!model.isArchived("e1"));
    QVERIFY(!model.isArchived("nope"));
    QCOMPARE(model.headerData(EnvironmentListModel::Id, Qt::Horizontal).toString(),
             QStringLiteral("environment"));
    view.selectRow(0);
    // A reset archives e1 and lists e2 above it: e1 stays selected, now archived, and only
    // its state cell's text changed (the archived role changed on every column).
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setEnvironments(environments({"e2:31337:t2", "e1:31337:t1:t3"}));
    QCOMPARE(selectedRows(view), (QList<int>{1}));
    QCOMPARE(model.environmentId(1), QStringLiteral("e1"));
    QVERIFY(model.isArchived("e1"));
    QVERIFY(!model.isArchived("e2"));
    QCOMPARE(model.text(1, EnvironmentListModel::State), QStringLiteral("archived t3"));
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).value<QModelIndex>(), model.index(1, 0));
    QCOMPARE(changed.first().at(1).value<QModelIndex>(),
             model.index(1, EnvironmentListModel::ColumnCount - 1));
    // Only the creation time corrected (no archiving): that cell alone.
    model.setEnvironments(environments({"e2:31337:t2b", "e1:31337:t1:t3"}));
    QCOMPARE(changed.size(), 2);
    QCOMPARE(changed.last().at(0).value<QModelIndex>(),
             model.index(0, EnvironmentListModel::Created));
    QCOMPARE(changed.last().at(1).value<QModelIndex>(),
             model.index(0, EnvironmentListModel::Created));
    QCOMPARE(selectedRows(view), (QList<int>{1}));
    QVERIFY(!model.index(0, 0).data(Qt::BackgroundRole).isValid());
}

QTEST_MAIN(TestUiModels)
void TestUiModels::environmentTimesAreLocalWithUtcOnHover()
{
    const QByteArray oldTz = qgetenv("TZ");
    qputenv("TZ", "FST-1"); // UTC+1: local and stored differ
    tzset();
    EnvironmentListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    EngineStatus s;
    s.environments = {{"lab-1", 31337, "2025-01-02T03:04:05.678Z", "2025-01-02T23:30:00.000Z"}};
    model.applyStatus(s);
    QCOMPARE(model.text(0, EnvironmentListModel::Created), QString("2025-01-02\u00a004:04:05"));
    QCOMPARE(model.text(0, EnvironmentListModel::State),
             QString("archived 2025-01-03\u00a000:30:00"));
    QCOMPARE(model.index(0, EnvironmentListModel::Created).data(Qt::ToolTipRole).toString(),
             QStringLiteral("2025-01-02 03:04:05 UTC"));
    QCOMPARE(model.index(0, EnvironmentListModel::State).data(Qt::ToolTipRole).toString(),
             QStringLiteral("archived 2025-01-02 23:30:00 UTC"));
    if (oldTz.isNull())
        qunsetenv("TZ");
    else
        qputenv("TZ", oldTz);
    tzset();
}

#include "tst_uimodels.moc"
