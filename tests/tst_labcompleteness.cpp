// The app on a managed lab whose indexed node drops logs: it cannot look green
// over a gap. The red banner names the node and the block, the state says "data
// incomplete", the node is marked "dropping logs", and Repair... rolls back and fetches
// again from the healthy node, after which the invariants hold.
#include "EngineToolBar.h"
#include "GuiLab.h"
#include "completeness/DataIncompleteBanner.h"
#include "completeness/RepairDialog.h"
#include "lab/FaultProxyDialog.h"
#include "models/NodeTableModel.h"
#include "report/ReportExporter.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QStatusBar>
#include <optional>

using namespace forkscope;
using test::answerNextDialog;
using test::Lab;
using V = engine::InvariantVerdict::State;

class TestLabCompleteness : public QObject
{
    Q_OBJECT
private slots:
    void proposedRepairNode_data();
    void proposedRepairNode();
    void droppingNodeShowsTheBannerAndRepairFetchesFromTheHealthyOne();
    void verifyReceiptsCatchesRandomDrops();
    void holeInCommittedDataIsFoundAndRepaired();
    void warningsEndWithTheirCause();
};

void TestLabCompleteness::proposedRepairNode_data()
{
    using health::NodeState;
    QTest::addColumn<QList<int>>("states");
    QTest::addColumn<int>("bad");
    QTest::addColumn<int>("proposed");
    QTest::newRow("the other, caught up") << QList<int>{5, 1} << 0 << 1;
    QTest::newRow("a caught-up one first") << QList<int>{5, 2, 1} << 0 << 2;
    QTest::newRow("lagging beats dropping") << QList<int>{5, 2} << 0 << 1;
    QTest::newRow("only liars: the same") << QList<int>{5, 5} << 0 << 0;
    QTest::newRow("alone") << QList<int>{5} << 0 << 0;
}

void TestLabCompleteness::proposedRepairNode()
{
    QFETCH(QList<int>, states);
    QFETCH(int, bad);
    QFETCH(int, proposed);
    QList<health::NodeHealth> nodes;
    for (int i = 0; i < states.size(); ++i) {
        health::NodeHealth n;
        n.url = QStringLiteral("http://node%1").arg(i);
        n.state = health::NodeState(states[i]);
        nodes << n;
    }
    QCOMPARE(ui::RepairDialog::proposedNode(nodes, nodes[bad].url), nodes[proposed].url);
}

void TestLabCompleteness::droppingNodeShowsTheBannerAndRepairFetchesFromTheHealthyOne()
{
    Lab lab;
    lab.start(2);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("proxy")->isEnabled(), 30000);
    test::settle(lab, 5);
    auto* banner = lab.w.dataIncompleteBanner();
    QVERIFY(!banner->isVisible()); // never red over complete data

    // Lab > Fault proxy: node 1 (the indexed one) hides every log of half the blocks, in
    // every answer. The bloom check proves it.
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        d->setNode(0);
        d->dropBlockRateBox()->setValue(0.5);
    });
    lab.w.labAction("proxy")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().proxyKnobs.value(0).value("dropBlockRate").toDouble() > 0,
                             10000);
    // It hides them of new blocks, which the bloom check proves ("fetch": indexing stops
    // there), and of stored blocks, which the head's absence check may meet first
    // ("absence", below the checkpoint: nothing stops). Both are red; a repair starts at
    // the lowest.
    const auto openOfKind = [&](const char* kind) -> std::optional<indexer::CompletenessAlert> {
        for (const auto& a : lab.last().openAlerts)
            if (a.kind == QLatin1String(kind))
                return a;
        return std::nullopt;
    };
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(openOfKind("fetch").has_value(), 60000);
    lab.w.labAction("demo")->trigger();
    const QString node1 = lab.last().labNodes.value(0);
    const QString node2 = lab.last().labNodes.value(1);
    QVERIFY2(banner->text().contains(node1) && banner->text().contains("block"),
             qPrintable(banner->text()));
    QCOMPARE(lab.last().indexerState, QStringLiteral("data incomplete"));
    const quint64 bad = openOfKind("fetch")->fromBlock;
    QVERIFY(lab.last().checkpoint.value_or(0) < bad);
    for (const auto& a : lab.last().openAlerts)
        QVERIFY2(a.kind == QLatin1String("fetch") ||
                     (a.kind == QLatin1String("absence") &&
                      a.toBlock <= lab.last().checkpoint.value_or(0)),
                 qPrintable(a.summary()));
    const quint64 repairFrom = lab.last().openAlerts.first().fromBlock; // the lowest
    // The status bar says it too, and node health marks the node.
    bool statusSays = false;
    for (auto* l : lab.w.statusBar()->findChildren<QLabel*>())
        statusSays = statusSays || l->text() == QLatin1String("data incomplete");
    QVERIFY(statusSays);
    QTRY_VERIFY_WITH_TIMEOUT(
        lab.w.nodeModel()->text(0, ui::NodeTableModel::State).startsWith("dropping logs"), 15000);

    // Repair...: the dialog proposes node 2; roll back and fetch again from it.
    answerNextDialog<ui::RepairDialog>([&](ui::RepairDialog* d) {
        QCOMPARE(d->node(), node2);
        QCOMPARE(d->fromBlock(), repairFrom);
    });
    banner->repairButton()->click();
    // Indexing stopped before the bad block: nothing is stored there to roll back (unless
    // stored blocks were in doubt too); the alerts are resolved and the blocks fetched from
    // node 2.
    if (repairFrom == bad)
        QTRY_VERIFY_WITH_TIMEOUT(lab.logged("repair: nothing stored from block"), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), 30000);
    QCOMPARE(lab.last().endpoint, node2);
    // The Fault proxy dialog says which node the indexer reads now.
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        QVERIFY2(!d->nodeLabel(0).contains("indexed"), qPrintable(d->nodeLabel(0)));
        QVERIFY2(d->nodeLabel(1).contains("indexed"), qPrintable(d->nodeLabel(1)));
        d->setNode(1); // its own knobs again: nothing changes
    });
    lab.w.labAction("proxy")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().checkpoint.value_or(0) >= bad, 30000);
    lab.w.labAction("check")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 60000);
    QVERIFY(lab.last().openAlerts.isEmpty());
    lab.host.shutdown();
}

void TestLabCompleteness::verifyReceiptsCatchesRandomDrops()
{
    // Random single logs left out of eth_getLogs (the receipts stay honest). With Lab >
    // Verify receipts on, the first such block raises the banner, named: by the receipts
    // proof (the missing logs), or already by the bloom when the dropped log's bits were
    // its own (the demo pays 50 different holders, so usually that), or, when the node drops
    // logs of blocks indexed before the fault, by the re-check of stored blocks (the node
    // "no longer returns stored logs"; seen once on a loaded CI machine).
    Lab lab;
    lab.start(2, [](engine::EngineConfig& c) { c.demoTransfersPerTick = 10; });
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("receipts")->isEnabled(), 30000);
    test::settle(lab, 3);
    lab.w.labAction("receipts")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().verifyReceipts, 10000);
    // An honest node first: the blocks it serves are proven.
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().completeness.receiptProofs > 0, 30000);
    lab.w.labAction("demo")->trigger();
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        d->setNode(0);
        d->dropLogRateBox()->setValue(0.3);
        d->dropInReceiptsBox()->setChecked(false);
    });
    lab.w.labAction("proxy")->trigger();
    lab.w.labAction("demo")->trigger();
    auto* banner = lab.w.dataIncompleteBanner();
    QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 60000);
    lab.w.labAction("demo")->trigger();
    QVERIFY2(banner->text().contains(lab.last().labNodes.value(0)) &&
                 (banner->text().contains("missing") || banner->text().contains("logsBloom") ||
                  banner->text().contains("no longer returns stored logs")),
             qPrintable(banner->text()));
    QCOMPARE(lab.last().indexerState, QStringLiteral("data incomplete"));
    lab.host.shutdown();
}

void TestLabCompleteness::holeInCommittedDataIsFoundAndRepaired()
{
    // Rows deleted behind the indexer's back (a hole in committed data): Engine > Verify
    // stored data finds it and raises the banner; Repair... rolls back to the block before
    // it in one transaction (a reorg with reason "repair") and indexes again.
    Lab lab;
    lab.start(2);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("proxy")->isEnabled(), 30000);
    test::settle(lab, 8);
    const QString env = lab.last().environmentId;
    quint64 holeBlock = 0;
    {
        auto db = store::Database::open(lab.dbPath());
        QSqlQuery q = db->run(QStringLiteral("SELECT min(block_number) FROM transfer_events "
                                             "WHERE environment_id = ? AND block_number > 2"),
                              {env});
        QVERIFY(q.next());
        holeBlock = q.value(0).toULongLong();
        store::WriteTransaction tx(*db);
        db->run(QStringLiteral("DELETE FROM logs WHERE environment_id = ? AND block_number = ?"),
                {env, qint64(holeBlock)});
        db->run(QStringLiteral("DELETE FROM transfer_events WHERE environment_id = ? AND "
                               "block_number = ?"),
                {env, qint64(holeBlock)});
        tx.commit();
    }
    auto* banner = lab.w.dataIncompleteBanner();
    QVERIFY(!banner->isVisible());
    lab.w.engineToolBar()->verifyStoredDataAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 30000);
    QVERIFY2(banner->text().contains(QStringLiteral("block %1").arg(holeBlock)),
             qPrintable(banner->text()));
    QCOMPARE(lab.last().indexerState, QStringLiteral("data incomplete"));

    answerNextDialog<ui::RepairDialog>(
        [&](ui::RepairDialog* d) { QCOMPARE(d->fromBlock(), holeBlock); });
    banner->repairButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("repair: rolled back to block"), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), 30000);
    const auto hasRepairMark = [&] {
        for (const auto& m : lab.last().recentReorgs)
            if (m.reason == QLatin1String("repair"))
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(hasRepairMark(), 10000);
    lab.w.labAction("check")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 60000);
    lab.w.engineToolBar()->verifyStoredDataAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("verify: blocks"), 30000);
    QVERIFY(!banner->isVisible());
    lab.host.shutdown();
}

void TestLabCompleteness::warningsEndWithTheirCause()
{
    // A silent eth_getLogs cap on the indexed node: a block it cannot get whole. Every
    // warning of it ends when its cause does: the cap removed, the app tries the node again,
    // gets the block whole, and the banner, the node's mark and the status bar's error go;
    // an export at that moment reads the same state. After a reset onto a new chain nothing
    // of the old one is left either.
    Lab lab;
    lab.start(2, [](engine::EngineConfig& c) { c.demoTransfersPerTick = 10; });
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("proxy")->isEnabled(), 30000);
    test::settle(lab, 3);
    auto* banner = lab.w.dataIncompleteBanner();
    const auto setCap = [&](int cap) {
        answerNextDialog<ui::FaultProxyDialog>([cap](ui::FaultProxyDialog* d) {
            d->setNode(0);
            d->logCapBox()->setValue(cap);
            d->capModeBox()->setCurrentIndex(0); // silent
        });
        lab.w.labAction("proxy")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(lab.last().proxyKnobs.value(0).value("logCap").toInt() == cap,
                                 10000);
    };
    const auto node1 = [&] { return lab.w.nodeModel()->text(0, ui::NodeTableModel::State); };
    setCap(3);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 60000);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(node1().startsWith("dropping logs"), 15000);
    QVERIFY(!lab.w.lastErrorText().isEmpty());

    // The cap removed: the node is asked again and answers whole.
    setCap(0);
    QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), 60000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().openAlerts.isEmpty(), 10000);
    QTRY_VERIFY2_WITH_TIMEOUT(!node1().startsWith("dropping logs"), qPrintable(node1()), 15000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.lastErrorText(), QString(), 15000);
    QVERIFY(lab.logged("now returns the blocks it did not return whole"));
    // The export at that moment: complete, and the state the window shows.
    const QString json = lab.dir.filePath("now.json");
    QSignalSpy exported(lab.w.reportExporter(), &ui::ReportExporter::exportFinished);
    lab.w.reportExporter()->exportReport(json);
    QVERIFY(exported.wait(30000));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(root.value("completeness").toObject().value("state").toString(),
             QStringLiteral("complete"));
    QVERIFY2(!root.value("app_state").toString().contains("incomplete"),
             qPrintable(root.value("app_state").toString()));
    lab.w.labAction("check")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 60000);

    // Caught again; Repair reads node 2 from then on; then a reset onto a new chain. After
    // each, nothing of the old trouble stays on screen.
    setCap(3);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(banner->isVisible(), 60000);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(node1().startsWith("dropping logs"), 15000);
    answerNextDialog<ui::RepairDialog>(
        [&](ui::RepairDialog* d) { QCOMPARE(d->node(), lab.last().labNodes.value(1)); });
    banner->repairButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!banner->isVisible(), 30000);
    QTRY_VERIFY2_WITH_TIMEOUT(!node1().startsWith("dropping logs"), qPrintable(node1()), 15000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.lastErrorText(), QString(), 15000);
    QTimer::singleShot(0, [] {
        QTRY_VERIFY(QApplication::activeModalWidget() != nullptr);
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        for (QAbstractButton* b : box->buttons())
            if (b->text() == QLatin1String("Reset"))
                b->click();
    });
    const QString before = lab.last().environmentId;
    lab.w.labAction("reset")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().environmentId != before, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().labReady, 60000);
    QVERIFY(!banner->isVisible());
    QVERIFY2(!node1().startsWith("dropping logs"), qPrintable(node1()));
    QCOMPARE(lab.w.lastErrorText(), QString());
    lab.host.shutdown();
}

QTEST_MAIN(TestLabCompleteness)
#include "tst_labcompleteness.moc"
