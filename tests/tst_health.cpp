// Node health rules as data tables, and the monitor against three nodes behind fault
// proxies (one lagging, one offline), including the ready-ratio gate.
#include "IndexerLab.h"
#include "health/NodeHealthMonitor.h"
#include "health/NodeState.h"
#include "lab/FaultProxy.h"

#include <QSignalSpy>
#include <QThread>
#include <QtTest>

using namespace forkscope;
using health::NodeState;

Q_DECLARE_METATYPE(std::optional<std::uint64_t>)

class TestHealth : public QObject
{
    Q_OBJECT
private slots:
    void classify_data();
    void classify();
    void readyHeight_data();
    void readyHeight();
    void threeNodesOneLaggingOneOffline();
};

void TestHealth::classify_data()
{
    // clang-format off
    QTest::addColumn<bool>("answered");
    QTest::addColumn<int>("head");
    QTest::addColumn<int>("best");
    QTest::addColumn<bool>("sameHash"); // vs the indexer's block at that height
    QTest::addColumn<int>("expected");
    QTest::newRow("at the best head") << true << 100 << 100 << true << int(NodeState::CaughtUp);
    QTest::newRow("within the threshold") << true << 98 << 100 << true << int(NodeState::CaughtUp);
    QTest::newRow("beyond the threshold") << true << 97 << 100 << true << int(NodeState::Lagging);
    QTest::newRow("no answer") << false << 100 << 100 << true << int(NodeState::Offline);
    QTest::newRow("same height, other hash") << true << 100 << 100 << false << int(NodeState::Forked);
    // clang-format on
}

void TestHealth::classify()
{
    QFETCH(bool, answered);
    QFETCH(int, head);
    QFETCH(int, best);
    QFETCH(bool, sameHash);
    QFETCH(int, expected);
    const auto h = chain::Hash32::fromBytes(QByteArray(32, '\1'), "h");
    const auto other = chain::Hash32::fromBytes(QByteArray(32, '\2'), "h");
    health::NodeObservation o{answered, std::uint64_t(head), h};
    QCOMPARE(int(health::classify(o, std::uint64_t(best), 2, sameHash ? h : other)), expected);
}

void TestHealth::readyHeight_data()
{
    // clang-format off
    QTest::addColumn<QList<std::optional<std::uint64_t>>>("heads");
    QTest::addColumn<double>("ratio");
    QTest::addColumn<std::optional<std::uint64_t>>("expected");
    using H = std::optional<std::uint64_t>;
    QTest::newRow("all agree") << QList<H>{10, 10, 10} << 0.8 << H(10);
    QTest::newRow("0.8 of 3 needs all 3") << QList<H>{10, 9, 5} << 0.8 << H(5);
    QTest::newRow("0.6 of 3 needs 2") << QList<H>{10, 9, 5} << 0.6 << H(9);
    QTest::newRow("offline counts against") << QList<H>{10, 9, std::nullopt} << 0.8 << H();
    QTest::newRow("offline tolerated at 0.6") << QList<H>{10, 9, std::nullopt} << 0.6 << H(9);
    QTest::newRow("5 nodes at 0.8 need 4") << QList<H>{20, 19, 18, 17, 3} << 0.8 << H(17);
    QTest::newRow("no nodes") << QList<H>{} << 0.8 << H();
    // clang-format on
}

void TestHealth::readyHeight()
{
    QFETCH(QList<std::optional<std::uint64_t>>, heads);
    QFETCH(double, ratio);
    QFETCH(std::optional<std::uint64_t>, expected);
    QCOMPARE(health::readyHeight(heads, ratio), expected);
}

void TestHealth::threeNodesOneLaggingOneOffline()
{
    test::IndexerLab lab;
    lab.mine(20);
    const auto head = lab.eth().blockNumber();
    test::ThreeNodes nodes(lab.devnet().url());
    auto& good = nodes.good;
    auto& lagging = nodes.lagging;
    auto& dead = nodes.dead;

    health::NodeHealthMonitor::Config c;
    c.nodes = {good.url(), lagging.url(), dead.url()};
    c.interval = std::chrono::milliseconds(50);
    c.timeout = std::chrono::milliseconds(500);
    c.readyRatio = 0.8;
    QThread thread;
    auto* monitor = new health::NodeHealthMonitor(c);
    monitor->moveToThread(&thread);
    connect(&thread, &QThread::started, monitor, &health::NodeHealthMonitor::start);
    connect(&thread, &QThread::finished, monitor, &QObject::deleteLater);
    QSignalSpy snapshots(monitor, &health::NodeHealthMonitor::healthAvailable);
    thread.start();
    QVERIFY(snapshots.wait(5000));
    QTRY_VERIFY_WITH_TIMEOUT(monitor->snapshot().nodes[2].polls >= 2, 5000);

    auto s = monitor->snapshot();
    QCOMPARE(s.nodes[0].state, NodeState::CaughtUp);
    QCOMPARE(s.nodes[1].state, NodeState::Lagging);
    QCOMPARE(s.nodes[1].head, head - 5);
    QCOMPARE(s.nodes[2].state, NodeState::Offline);
    QVERIFY(!s.nodes[2].lastError.isEmpty());
    // 0.8 of 3 nodes = all 3: with one offline nothing counts as confirmed.
    QVERIFY(!monitor->readyHeight().has_value());

    // The dead node comes back: the gate opens at the lagging node's height.
    dead.setOffline(false);
    QTRY_VERIFY_WITH_TIMEOUT(monitor->readyHeight().has_value(), 5000);
    QCOMPARE(*monitor->readyHeight(), head - 5);
    lagging.setLagBlocks(0);
    QTRY_COMPARE_WITH_TIMEOUT(monitor->readyHeight().value_or(0), head, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(monitor->snapshot().nodes[1].state, NodeState::CaughtUp, 5000);
    // History is kept per node for charts (and bounded).
    QVERIFY(monitor->history(c.nodes[2].toString()).size() >= 3);
    QVERIFY(health::NodeHealthMonitor::kHistoryLimit == 86400);

    QMetaObject::invokeMethod(monitor, &health::NodeHealthMonitor::stop,
                              Qt::BlockingQueuedConnection);
    thread.quit();
    thread.wait();
}

QTEST_GUILESS_MAIN(TestHealth)
#include "tst_health.moc"
