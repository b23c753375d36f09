// The main window against a real engine (managed anvil on a worker thread): it shows the
// node and the chain id it read, and shuts the worker and anvil down cleanly.
#include "MainWindow.h"
#include "engine/EngineHost.h"
#include "panels/PlotPanel.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"
#include "rpc/EthClient.h"
#include "ReorgDiffDialog.h"
#include "lab/DemoToken.h"
#include "store/Database.h"

#include <QJsonArray>
#include <QTableWidget>
#include <qcustomplot.h>

#include <QSqlQuery>

#include <QLabel>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void showsFourPanels();
    void showsNodeAndChainFromManagedDevnet();
    void showsUnreachableNodeWithoutInventingData();
    void injectedReorgAppearsAsOneBar();
    void nodeTableShowsAnOfflineNode();
    void pauseAndResumeIndexingWithTheCheckpointView();
};

void TestMainWindow::showsFourPanels()
{
    ui::MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.panels().size(), 4);
    QStringList titles;
    for (auto* p : w.panels())
        titles << p->title();
    QCOMPARE(titles, (QStringList{"Cursor lag", "Reorg events", "Outbox backlog", "Node health"}));
}

void TestMainWindow::showsNodeAndChainFromManagedDevnet()
{
    QTemporaryDir dir;
    ui::MainWindow w;
    engine::EngineHost host;
    QObject::connect(&host, &engine::EngineHost::statusAvailable, &w, &ui::MainWindow::applyStatus);
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    w.show();
    engine::EngineConfig config;
    config.dbPath = dir.filePath("app.sqlite");
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(w.chainText() == QStringLiteral("chain id 31337"), 30000);
    QVERIFY2(w.nodeText().startsWith("managed anvil: http://127.0.0.1:"), qPrintable(w.nodeText()));
    QVERIFY(QFile::exists(config.dbPath));
    // The managed lab indexes its demo token: the cursor lag panel fills with real data.
    QTRY_VERIFY_WITH_TIMEOUT(w.checkpointText().startsWith("checkpoint "), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(w.panels().first()->pointCount(1) >= 3, 30000);
    QVERIFY(w.panels().first()->placeholderText().isEmpty());
    QVERIFY2(w.panels().first()->summary().contains("lag"), qPrintable(w.panels().first()->summary()));
    // The GUI thread was never the one doing the work.
    const auto last = statuses.last().at(0).value<engine::EngineStatus>();
    QCOMPARE(last.connection, engine::EngineStatus::Connection::Connected);
    const QUrl url(last.endpoint);
    host.shutdown();
    QVERIFY(!host.isRunning());
    {
        // What the window showed is in the database.
        auto db = store::Database::open(config.dbPath);
        QSqlQuery q = db->run("SELECT count(*) FROM transfer_events WHERE environment_id = ?", {last.environmentId});
        QVERIFY(q.next() && q.value(0).toInt() > 0);
    }
    // The managed anvil is gone with the engine.
    QTcpSocket probe;
    probe.connectToHost(QHostAddress::LocalHost, quint16(url.port()));
    QVERIFY(!probe.waitForConnected(500));
}

void TestMainWindow::showsUnreachableNodeWithoutInventingData()
{
    ui::MainWindow w;
    engine::EngineHost host;
    QObject::connect(&host, &engine::EngineHost::statusAvailable, &w, &ui::MainWindow::applyStatus);
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    engine::EngineConfig config;
    config.managedDevnet = false;
    QTcpServer reserve; // a port nobody answers on
    QVERIFY(reserve.listen(QHostAddress::LocalHost));
    const quint16 port = reserve.serverPort();
    reserve.close();
    config.rpcUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    config.rpcTimeout = std::chrono::milliseconds(500);
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(!statuses.isEmpty() &&
                                 statuses.last().at(0).value<engine::EngineStatus>().connection ==
                                     engine::EngineStatus::Connection::Unreachable,
                             10000);
    QCOMPARE(w.chainText(), QStringLiteral("chain id unknown"));
    host.shutdown();
}

void TestMainWindow::injectedReorgAppearsAsOneBar()
{
    QTemporaryDir dir;
    ui::MainWindow w;
    engine::EngineHost host;
    QObject::connect(&host, &engine::EngineHost::statusAvailable, &w, &ui::MainWindow::applyStatus);
    QObject::connect(&w, &ui::MainWindow::reorgDiffRequested, &host, &engine::EngineHost::requestReorgDiff);
    QObject::connect(&host, &engine::EngineHost::reorgDiffAvailable, &w, &ui::MainWindow::showReorgDiff);
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    engine::EngineConfig config;
    config.dbPath = dir.filePath("reorg.sqlite");
    config.demoTraffic = false; // the test makes the blocks, so the chain holds still
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(w.checkpointText().startsWith("checkpoint "), 30000);
    const auto status = statuses.last().at(0).value<engine::EngineStatus>();
    rpc::JsonRpcClient client{QUrl(status.endpoint)};
    lab::DemoToken token(client, chain::Address::fromHex(status.contracts.first(), "token"),
                         lab::DemoToken::defaultSender(client));
    for (int i = 0; i < 4; ++i)
        token.spray(3, quint64(i) * 3, 20); // transfers in the blocks about to be replaced
    client.callBlocking("anvil_mine", {"0x2"});
    const auto head = rpc::EthClient(client).blockNumber();
    QTRY_COMPARE_WITH_TIMEOUT(w.checkpointText(), QStringLiteral("checkpoint %1").arg(head), 30000);

    client.callBlocking("anvil_reorg", {5, QJsonArray{}});
    ui::PlotPanel* reorgs = w.panels().at(1);
    QTRY_COMPARE_WITH_TIMEOUT(reorgs->barValues(0), (QList<double>{5.0}), 30000); // hash mismatch, depth 5
    QVERIFY(reorgs->barValues(1).isEmpty());
    QVERIFY(reorgs->barValues(2).isEmpty());
    QCOMPARE(reorgs->summary(), QStringLiteral("1 reorg(s)"));
    QVERIFY(w.panels().at(2)->pointCount(0) > 0); // the outbox backlog is plotted too

    // Click the bar: the diff view lists the transfers the rollback removed.
    QCustomPlot* plot = reorgs->plot();
    plot->replot();
    auto* bars = qobject_cast<QCPBars*>(plot->plottable(0));
    QVERIFY(bars && bars->dataCount() == 1);
    const QPoint at(int(plot->xAxis->coordToPixel(bars->data()->at(0)->key)),
                    int(plot->yAxis->coordToPixel(2.5)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    QTRY_VERIFY_WITH_TIMEOUT(w.lastDiffDialog() != nullptr, 10000);
    QVERIFY2(w.lastDiffDialog()->summary().contains("depth 5"), qPrintable(w.lastDiffDialog()->summary()));
    int removed = 0, balances = 0;
    for (int r = 0; r < w.lastDiffDialog()->table()->rowCount(); ++r) {
        const QString what = w.lastDiffDialog()->table()->item(r, 0)->text();
        removed += what == QLatin1String("transfer removed");
        balances += what == QLatin1String("balance recomputed");
    }
    QCOMPARE(removed, 9); // depth 5 = 2 empty blocks + the last 3 sprays of 3 transfers
    QVERIFY(balances > 0);
    host.shutdown();
}

void TestMainWindow::nodeTableShowsAnOfflineNode()
{
    lab::Devnet devnet;
    devnet.start();
    lab::FaultProxy a(devnet.url()), b(devnet.url());
    a.listen();
    b.listen();
    ui::MainWindow w;
    engine::EngineHost host;
    QObject::connect(&host, &engine::EngineHost::statusAvailable, &w, &ui::MainWindow::applyStatus);
    engine::EngineConfig config;
    config.managedDevnet = false;
    config.rpcUrl = a.url();
    config.nodes = {a.url(), b.url()};
    config.indexing = false;
    host.start(config);
    const auto stateOf = [&](int row) {
        auto* item = w.nodeTable()->item(row, 1);
        return item ? item->text() : QString();
    };
    QTRY_COMPARE_WITH_TIMEOUT(w.nodeTable()->rowCount(), 2, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(1), QStringLiteral("caught up"), 10000);
    b.setOffline(true);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(1), QStringLiteral("offline"), 10000);
    QCOMPARE(stateOf(0), QStringLiteral("caught up"));
    QVERIFY(!w.nodeTable()->item(1, 4)->text().isEmpty()); // the last error is shown
    QVERIFY(w.panels().at(3)->summary().contains("offline"));
    host.shutdown();
}

void TestMainWindow::pauseAndResumeIndexingWithTheCheckpointView()
{
    QTemporaryDir dir;
    ui::MainWindow w;
    engine::EngineHost host;
    QObject::connect(&host, &engine::EngineHost::statusAvailable, &w, &ui::MainWindow::applyStatus);
    QObject::connect(&w, &ui::MainWindow::indexingPauseRequested, &host, &engine::EngineHost::setIndexingPaused);
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    engine::EngineConfig config;
    config.dbPath = dir.filePath("pause.sqlite");
    config.demoTraffic = false;
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(w.checkpointText().startsWith("checkpoint "), 30000);
    const QUrl node(statuses.last().at(0).value<engine::EngineStatus>().endpoint);
    rpc::JsonRpcClient client(node);
    rpc::EthClient eth(client);

    w.pauseAction()->trigger(); // Ctrl+I
    QTRY_VERIFY_WITH_TIMEOUT(w.panels().first()->summary().contains("paused"), 10000);
    const QString before = w.checkpointField("number");
    client.callBlocking("anvil_mine", {"0x5"});
    QTest::qWait(1500);
    QCOMPARE(w.checkpointField("number"), before); // nothing moves while paused

    w.pauseAction()->trigger();
    const auto head = eth.blockNumber();
    QTRY_COMPARE_WITH_TIMEOUT(w.checkpointField("number"), QString::number(head), 15000);
    // The checkpoint view shows the claim as stored, and it matches the node.
    QTRY_COMPARE_WITH_TIMEOUT(w.checkpointField("hash"), eth.blockByNumber(head)->hash.toHex(), 15000);
    QCOMPARE(w.checkpointField("policy"), QStringLiteral("follow-head/confirmations=0"));
    QCOMPARE(w.checkpointField("generation"), QStringLiteral("1"));
    QCOMPARE(w.checkpointField("chain"), QStringLiteral("31337"));
    host.shutdown();
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
