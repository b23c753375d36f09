// The desktop lab's verbs, as a user drives them (menu actions and their dialogs) against
// a real managed anvil: each leaves the invariants holding and the verdict green.
#include "GuiLab.h"
#include "MainWindow.h"
#include "engine/EngineHost.h"
#include "health/NodeHealthMonitor.h"
#include "lab/DeepReorgBanner.h"
#include "lab/FaultProxyDialog.h"
#include "lab/InjectReorgDialog.h"
#include "lab/LabToolBar.h"
#include "lab/VerdictBadge.h"
#include "models/NodeTableModel.h"
#include "panels/PlotPanel.h"
#include "store/Database.h"
#include <QPushButton>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QInputDialog>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace forkscope;
using V = engine::InvariantVerdict::State;

using test::answerNextDialog;
using test::Lab;

class TestLab : public QObject
{
    Q_OBJECT
private slots:
    void injectReorgKeepsTheInvariants_data();
    void injectReorgKeepsTheInvariants();
    void crashPointsRecover_data();
    void crashPointsRecover();
    void rollBackAndDemoTraffic();
    void faultProxyKnobsPerNode();
    void scenariosAreOneClickInTheLabMenu();
    void deepReorgBannerWaitsForTheUsersChoice();
};

void TestLab::injectReorgKeepsTheInvariants_data()
{
    // clang-format off
    QTest::addColumn<int>("mode");
    QTest::newRow("keep the transfers") << 0;
    QTest::newRow("drop the transfers") << 1;
    QTest::newRow("move the transfers") << 2;
    // clang-format on
}

void TestLab::injectReorgKeepsTheInvariants()
{
    QFETCH(int, mode);
    Lab lab;
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("reorg")->isEnabled(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.checkpointText().startsWith("checkpoint "), 30000);
    // Transfers in the blocks about to be replaced: demo traffic for a few seconds.
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().headBlock.value_or(0) >= 9, 30000); // one block per tick
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last().demoTraffic, 10000);
    // The blocks to be replaced must be indexed, or there is nothing to roll back.
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().checkpoint && lab.last().checkpoint == lab.last().headBlock,
                             30000);
    QTest::qWait(1200); // the last demo tick may still be mining

    answerNextDialog<ui::InjectReorgDialog>([mode](ui::InjectReorgDialog* d) {
        d->setDepth(5);
        d->setTxMode(mode);
    });
    lab.w.labAction("reorg")->trigger();
    // One bar of depth 5, whichever check noticed it first (hash or parent mismatch).
    const auto bars = [&] {
        return lab.w.panels().at(1)->barValues(0) + lab.w.panels().at(1)->barValues(1) +
               lab.w.panels().at(1)->barValues(2);
    };
    // Depth 4 is possible when keeping: the first new block can come out identical to the
    // one it replaces (same parent, transactions and timestamp second), so no fork there.
    QTRY_COMPARE_WITH_TIMEOUT(bars().size(), 1, 30000);
    QVERIFY2(bars().first() == 5 || (mode == 0 && bars().first() == 4),
             qPrintable(QString::number(bars().first())));
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 30000);
    const QString verdict = lab.w.labToolBar()->verdictBadge()->text();
    QVERIFY2(verdict.contains("invariants hold"), qPrintable(verdict));
    QVERIFY(lab.last().verdict.action.contains("inject reorg depth 5"));
    lab.host.shutdown();
}

void TestLab::crashPointsRecover_data()
{
    // clang-format off
    QTest::addColumn<QString>("point");
    QTest::newRow("before commit") << "before-commit";
    QTest::newRow("after commit") << "after-commit";
    QTest::newRow("mid rollback") << "mid-rollback";
    // clang-format on
}

void TestLab::crashPointsRecover()
{
    QFETCH(QString, point);
    Lab lab;
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("crash")->isEnabled(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.checkpointText().startsWith("checkpoint "), 30000);
    lab.w.labAction("demo")->trigger(); // blocks with transfers to commit and to reorg
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().headBlock.value_or(0) >= 6, 30000);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last().demoTraffic, 10000);

    answerNextDialog<QInputDialog>([point](QInputDialog* d) { d->setTextValue(point); });
    lab.w.labAction("crash")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("indexer crashed at " + point), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.last().indexerRestarts, 1, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 30000);
    QVERIFY(lab.last().verdict.action.contains("recovery from a crash at " + point));
    // Indexing goes on after the recovery.
    const auto before = lab.last().checkpoint.value_or(0);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().checkpoint.value_or(0) > before + 2, 30000);
    lab.host.shutdown();
}

void TestLab::rollBackAndDemoTraffic()
{
    Lab lab;
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("rollback")->isEnabled(), 30000);
    // Demo traffic at a chosen rate.
    lab.w.findChild<QSpinBox*>("demoRate")->setValue(25);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().demoTraffic && lab.last().demoTransfersPerTick == 25,
                             10000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().transfersCommitted >= 50, 30000);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last().demoTraffic, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.last().checkpoint, lab.last().headBlock, 30000);

    answerNextDialog<QInputDialog>([](QInputDialog* d) { d->setIntValue(2); });
    lab.w.labAction("rollback")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("rolled back 2 blocks; head is now"), 15000);
    // The node is now behind the checkpoint; new blocks replace the removed ones and the
    // indexer rolls back to the fork. Mine them with one more demo burst.
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().reorgs >= 1, 30000);
    lab.w.labAction("demo")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 30000);
    lab.host.shutdown();
}

void TestLab::faultProxyKnobsPerNode()
{
    Lab lab;
    lab.start(2);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("proxy")->isEnabled(), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.nodeModel()->rowCount(), 2, 15000);
    // Node 2 offline: the node table says so, node 1 (indexed) carries on.
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        d->setNode(1);
        d->offlineBox()->setChecked(true);
    });
    lab.w.labAction("proxy")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.nodeModel()->text(1, ui::NodeTableModel::State),
                              QStringLiteral("offline"), 15000);
    QCOMPARE(lab.w.nodeModel()->text(0, ui::NodeTableModel::State), QStringLiteral("caught up"));
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().proxyKnobs.value(1).value("offline").toBool(), 10000);
    // Node 1 lags 3 blocks: the health table shows it lagging behind node 2's head... node
    // 2 is offline, so bring it back first; then the indexed node serves an older head.
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        d->setNode(1);
        d->offlineBox()->setChecked(false);
    });
    lab.w.labAction("proxy")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.nodeModel()->text(1, ui::NodeTableModel::State),
                              QStringLiteral("caught up"), 15000);
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        d->setNode(0);
        d->latencyBox()->setValue(50);
        d->errorRateBox()->setValue(0.2);
    });
    lab.w.labAction("proxy")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().proxyKnobs.value(0).value("latencyMs").toInt() == 50,
                             10000);
    // Errors on the indexed node are retried, never mistaken for reorgs: still green. With
    // one request in five failing, the retries' back-off has made 30 transfers take 92 s.
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().transfersCommitted >= 30, 180000);
    lab.w.labAction("demo")->trigger();
    lab.w.labAction("check")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 60000);
    QCOMPARE(lab.last().reorgs, 0);
    lab.host.shutdown();
}

void TestLab::scenariosAreOneClickInTheLabMenu()
{
    Lab lab;
    lab.start(2);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("lostack")->isEnabled(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.checkpointText().startsWith("checkpoint "), 30000);
    // Lost acknowledgement: the event log tells the exchange.
    lab.w.labAction("lostack")->trigger();
    lab.w.labAction("demo")->trigger(); // a batch to commit (and to lose the answer to)
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("lost acknowledgement: batch"), 30000);
    lab.w.labAction("demo")->trigger();
    // Forked replica: node 2's row says forked, and the action shows it running.
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("replica")->isEnabled(), 10000);
    lab.w.labAction("replica")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("replica")->isChecked(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().health.nodes.size() == 2 &&
                                 lab.last().health.nodes.at(1).state == health::NodeState::Forked,
                             30000);
    lab.w.labAction("replica")->trigger(); // stop it: node 2 serves the lab's chain again
    QTRY_VERIFY_WITH_TIMEOUT(!lab.w.labAction("replica")->isChecked(), 30000);
    // Second writer: runs, then says what the compare-and-swap refused.
    lab.w.labAction("writers")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("the second writer stopped"), 40000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 30000);
    lab.host.shutdown();
}

void TestLab::deepReorgBannerWaitsForTheUsersChoice()
{
    Lab lab;
    lab.start(0, [](engine::EngineConfig& c) { c.indexer.maxReorgDepth = 3; });
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("deepreorg")->isEnabled(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.checkpointText().startsWith("checkpoint "), 30000);
    lab.w.labAction("deepreorg")->trigger();
    ui::DeepReorgBanner* banner = lab.w.deepReorgBanner();
    QTRY_VERIFY_WITH_TIMEOUT(!banner->isHidden(), 60000);
    QVERIFY2(banner->text().contains("Nothing was deleted"), qPrintable(banner->text()));
    const auto reorgs = lab.last().recentReorgs.size();
    QTest::qWait(1000); // nothing happens until the user chooses
    QCOMPARE(lab.last().recentReorgs.size(), reorgs);
    QVERIFY(!banner->isHidden());
    banner->raiseButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(banner->isHidden(), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.last().recentReorgs.size(), reorgs + 1, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 30000);
    lab.host.shutdown();
}

QTEST_MAIN(TestLab)
#include "tst_lab.moc"
