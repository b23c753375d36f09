// The main window against a real engine (managed anvil on a worker thread): it shows the
// node and the chain id it read, and shuts the worker and anvil down cleanly.
#include "BottomDrawer.h"
#include "EngineToolBar.h"
#include "EventLogView.h"
#include "GuiLab.h"
#include "MainWindow.h"
#include "ReorgDiffDialog.h"
#include "TableBrowser.h"
#include "WebhookRecorder.h"
#include "config/AppSettings.h"
#include "contracts/AddSourceDialog.h"
#include "contracts/ContractsView.h"
#include "contracts/SourceTableModel.h"
#include "engine/DisplayState.h"
#include "engine/EngineHost.h"
#include "engine/SettingsToConfig.h"
#include "indexer/EnvironmentRegistry.h"
#include "indexer/InvariantChecker.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"
#include "models/NodeTableModel.h"
#include "models/PagedTableModel.h"
#include "panels/PlotPanel.h"
#include "panels/ReorgPanel.h"
#include "panels/StateStrip.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "store/Database.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDialogButtonBox>
#include <QMessageBox>
#include <QWheelEvent>

#include <QJsonArray>
#include <QRegularExpression>
#include <QTableWidget>
#include <qcustomplot.h>

#include <QSqlQuery>

#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
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
    void panelsFollowLiveAndExplainPointsOnHover();
    void lagPanelShowsEtaAndFreshnessApartFromLag();
    void labControlsWaitForTheLabToBeSetUp();
    void eventLogFiltersByLevel();
    void tablesShowWhatTheDatabaseHolds();
    void devnetStopAndStartKeepsTheEnvironment();
    void stateHoldsStillWhileBlocksArrive();
    void anErrorLeavesWithItsCause();
    void outboxDeliversFromTheApp();
    void addFactoryAsksTheEngineBeforeAnything();
    void anAddedContractIsIndexedAtTheNextStart();
};

void TestMainWindow::showsFourPanels()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
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
    engine::EngineHost host;
    ui::MainWindow w(&host);
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    w.show();
    engine::EngineConfig config;
    config.dbPath = dir.filePath("app.sqlite");
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(w.chainText() == QStringLiteral("chain 31337"), 30000);
    QVERIFY2(w.nodeText().startsWith("managed anvil: http://127.0.0.1:"), qPrintable(w.nodeText()));
    QVERIFY(QFile::exists(config.dbPath));
    // The managed lab indexes its demo token: the cursor lag panel fills with real data.
    QTRY_VERIFY_WITH_TIMEOUT(w.checkpointText().startsWith("checkpoint "), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(w.panels().first()->pointCount(1) >= 3, 30000);
    QVERIFY(w.panels().first()->placeholderText().isEmpty());
    QVERIFY2(w.panels().first()->summary().contains("lag"),
             qPrintable(w.panels().first()->summary()));
    // The GUI thread was never the one doing the work.
    const auto last = statuses.last().at(0).value<engine::EngineStatus>();
    QCOMPARE(last.connection, engine::EngineStatus::Connection::Connected);
    QVERIFY(last.labReady);
    const QUrl url(last.endpoint);
    host.shutdown();
    QVERIFY(!host.isRunning());
    // Shutdown returns at once; the workers finish on their own threads.
    QVERIFY(host.waitForStopped(10000));
    {
        // What the window showed is in the database.
        auto db = store::Database::open(config.dbPath);
        QSqlQuery q = db->run("SELECT count(*) FROM transfer_events WHERE environment_id = ?",
                              {last.environmentId});
        QVERIFY(q.next() && q.value(0).toInt() > 0);
        // Its chain died with the managed anvil: the environment is archived, not left "live".
        const auto env = indexer::EnvironmentRegistry(*db).find(last.environmentId);
        QVERIFY(env && !env->archivedAt.isEmpty());
    }
    // The managed anvil is gone with the engine.
    QTcpSocket probe;
    probe.connectToHost(QHostAddress::LocalHost, quint16(url.port()));
    QVERIFY(!probe.waitForConnected(500));
}

void TestMainWindow::showsUnreachableNodeWithoutInventingData()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    engine::EngineConfig config;
    config.managedDevnet = false;
    QTcpServer reserve; // a port nobody answers on
    QVERIFY(reserve.listen(QHostAddress::LocalHost));
    const quint16 port = reserve.serverPort();
    reserve.close();
    config.rpcUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    config.indexer.rpcTimeout = std::chrono::milliseconds(500);
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(!statuses.isEmpty() &&
                                 statuses.last().at(0).value<engine::EngineStatus>().connection ==
                                     engine::EngineStatus::Connection::Unreachable,
                             10000);
    QCOMPARE(w.chainText(), QStringLiteral("chain unknown"));
    host.shutdown();
}

void TestMainWindow::injectedReorgAppearsAsOneBar()
{
    QTemporaryDir dir;
    engine::EngineHost host;
    ui::MainWindow w(&host);
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
    QTRY_COMPARE_WITH_TIMEOUT(reorgs->barValues(0), (QList<double>{5.0}),
                              30000); // hash mismatch, depth 5
    QVERIFY(reorgs->barValues(1).isEmpty());
    QVERIFY(reorgs->barValues(2).isEmpty());
    QCOMPARE(reorgs->summary(), QStringLiteral("1 reorg"));
    QVERIFY(w.panels().at(2)->pointCount(0) > 0); // the outbox backlog is plotted too
    QVERIFY(w.panels().at(1)->placeholderText().isEmpty());

    // Click the bar: the diff view lists the transfers the rollback removed.
    QCustomPlot* plot = reorgs->plot();
    plot->replot();
    auto* bars = qobject_cast<QCPBars*>(plot->plottable(0));
    QVERIFY(bars && bars->dataCount() == 1);
    const QPoint at(int(plot->xAxis->coordToPixel(bars->data()->at(0)->key)),
                    int(plot->yAxis->coordToPixel(2.5)));
    // Hovering the bar says which reorg it is before anyone clicks.
    QVERIFY2(reorgs->hoverTextAt(at).contains("reorg #"), qPrintable(reorgs->hoverTextAt(at)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    QTRY_VERIFY_WITH_TIMEOUT(w.reorgPanel()->lastDiffDialog() != nullptr, 10000);
    QVERIFY2(w.reorgPanel()->lastDiffDialog()->summary().contains("5 blocks replaced after block"),
             qPrintable(w.reorgPanel()->lastDiffDialog()->summary()));
    int removed = 0, balances = 0;
    for (int r = 0; r < w.reorgPanel()->lastDiffDialog()->table()->rowCount(); ++r) {
        const QString what = w.reorgPanel()->lastDiffDialog()->table()->item(r, 0)->text();
        removed += what == QLatin1String("transfer removed");
        balances += what == QLatin1String("balance recomputed");
    }
    QCOMPARE(removed, 9); // depth 5 = 2 empty blocks + the last 3 sprays of 3 transfers
    QVERIFY(balances > 0);
    // The summary says what it amounts to; the list beside the bars is another way in.
    QVERIFY2(w.reorgPanel()->lastDiffDialog()->counts().startsWith("9 transfers removed ("),
             qPrintable(w.reorgPanel()->lastDiffDialog()->counts()));
    // The log says the same in the same words, not in database rows.
    const QStringList logged = w.eventLog()->visibleLines();
    bool said = false;
    for (const QString& line : logged) {
        QVERIFY2(!line.contains("rows removed"), qPrintable(line));
        said = said || line.contains(QRegularExpression(
                           "reorg \\(hash mismatch\\): checkpoint \\d+ -> fork \\d+, depth 5: 9 "
                           "transfers removed, \\d+ balances recomputed, 9 outbox rows dropped"));
    }
    QVERIFY2(said, qPrintable(logged.join('\n')));
    QCOMPARE(w.reorgPanel()->reorgList()->count(), 1);
    host.shutdown();
}

void TestMainWindow::nodeTableShowsAnOfflineNode()
{
    lab::Devnet devnet;
    devnet.start();
    lab::FaultProxy a(devnet.url()), b(devnet.url());
    a.listen();
    b.listen();
    engine::EngineHost host;
    ui::MainWindow w(&host);
    engine::EngineConfig config;
    config.managedDevnet = false;
    config.rpcUrl = a.url();
    config.nodes = {a.url(), b.url()};
    config.indexing = false;
    host.start(config);
    const auto stateOf = [&](int row) {
        return w.nodeModel()->text(row, ui::NodeTableModel::State);
    };
    QTRY_COMPARE_WITH_TIMEOUT(w.nodeModel()->rowCount(), 2, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(1), QStringLiteral("caught up"), 10000);
    b.setOffline(true);
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(1), QStringLiteral("offline"), 10000);
    QCOMPARE(stateOf(0), QStringLiteral("caught up"));
    QVERIFY(!w.nodeModel()->text(1, ui::NodeTableModel::Error).isEmpty()); // the last error
    QVERIFY(w.panels().at(3)->summary().contains("offline"));
    host.shutdown();
}

void TestMainWindow::pauseAndResumeIndexingWithTheCheckpointView()
{
    QTemporaryDir dir;
    engine::EngineHost host;
    ui::MainWindow w(&host);
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    engine::EngineConfig config;
    config.dbPath = dir.filePath("pause.sqlite");
    config.demoTraffic = false;
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(w.checkpointText().startsWith("checkpoint "), 30000);
    const QUrl node(statuses.last().at(0).value<engine::EngineStatus>().endpoint);
    rpc::JsonRpcClient client(node);
    rpc::EthClient eth(client);

    w.engineToolBar()->pauseAction()->trigger(); // Ctrl+I
    QTRY_VERIFY_WITH_TIMEOUT(w.panels().first()->summary().contains("paused"), 10000);
    const QString before = w.checkpointField("number");
    client.callBlocking("anvil_mine", {"0x5"});
    QTest::qWait(1500);
    QCOMPARE(w.checkpointField("number"), before); // nothing moves while paused

    w.engineToolBar()->pauseAction()->trigger();
    const auto head = eth.blockNumber();
    QTRY_COMPARE_WITH_TIMEOUT(w.checkpointField("number"), QString::number(head), 15000);
    // The checkpoint view shows the claim as stored, and it matches the node.
    QTRY_COMPARE_WITH_TIMEOUT(w.checkpointField("hash"), eth.blockByNumber(head)->hash.toHex(),
                              15000);
    QCOMPARE(w.checkpointField("policy"), QStringLiteral("follow-head/confirmations=0"));
    QCOMPARE(w.checkpointField("generation"), QStringLiteral("1"));
    QCOMPARE(w.checkpointField("chain"), QStringLiteral("31337"));
    host.shutdown();
}

void TestMainWindow::panelsFollowLiveAndExplainPointsOnHover()
{
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    const int head = panel.addSeries("head", Qt::blue);
    panel.resize(800, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const double t0 = 1'800'000'000;
    for (int i = 0; i <= 600; ++i)
        panel.appendPoint(head, t0 + i, 100 + i);
    QCustomPlot* plot = panel.plot();
    // Following live: the last five minutes are in view, the newest point at the right.
    QVERIFY(panel.followLive());
    QCOMPARE(plot->xAxis->range().upper, t0 + 600 + 5);
    QCOMPARE(plot->xAxis->range().lower, t0 + 600 - ui::PlotPanel::kLiveWindowSecs);
    plot->replot();
    // Hover: the time and the series' value at that time, with the unit.
    const QPoint at(int(plot->xAxis->coordToPixel(t0 + 500)), int(plot->yAxis->coordToPixel(600)));
    const QString tip = panel.hoverTextAt(at);
    QVERIFY2(tip.contains("head: 600") || tip.contains("head: 599") || tip.contains("head: 601"),
             qPrintable(tip));
    QVERIFY(panel.hoverTextAt(QPoint(1, 1)).isEmpty()); // outside the axis rect: nothing
    // A Ctrl+wheel zoom means "let me look": following stops, new points no longer move the
    // view. (The plain wheel scrolls the page: tst_plotpanel.)
    QWheelEvent wheel(QPointF(at), plot->mapToGlobal(QPointF(at)), {}, QPoint(0, 120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
    QVERIFY(!panel.followLive());
    const QCPRange zoomed = plot->xAxis->range();
    panel.appendPoint(head, t0 + 700, 800);
    QCOMPARE(plot->xAxis->range(), zoomed);
    // Following live again jumps to now.
    panel.setFollowLive(true);
    QVERIFY(panel.followLive());
    QCOMPARE(plot->xAxis->range().upper, t0 + 700 + 5);
    // Bounded: never more than 24 h of samples per series.
    for (int i = 0; i < ui::PlotPanel::kMaxPoints + 10; ++i)
        panel.appendPoint(head, t0 + 1000 + i, i);
    QCOMPARE(panel.pointCount(head), ui::PlotPanel::kMaxPoints);
}

void TestMainWindow::lagPanelShowsEtaAndFreshnessApartFromLag()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    engine::EngineStatus s;
    s.connection = engine::EngineStatus::Connection::Connected;
    s.environmentId = "env-x";
    s.chainId = 31337;
    s.headBlock = 1000;
    s.checkpoint = 500;
    s.blocksPerSecond = 50;
    s.indexerState = "syncing";
    s.lastCommitAt = QDateTime::currentDateTimeUtc().addSecs(-5);
    s.updatedAt = QDateTime::currentDateTimeUtc();
    emit host.statusAvailable(s);
    const QString summary = w.panels().at(0)->summary();
    QVERIFY2(summary.contains("lag 500 blocks"), qPrintable(summary));
    QVERIFY2(summary.contains("ETA 10 s"), qPrintable(summary));
    QVERIFY2(summary.contains(QRegularExpression("last commit [56]\\.\\d s ago")),
             qPrintable(summary));
    QCOMPARE(w.environmentText(), QStringLiteral("env env-x"));
    QCOMPARE(w.lagText(), QStringLiteral("lag 500 blocks"));
    // Caught up on a stalled chain: lag 0, no ETA, and freshness still says how old it is.
    s.checkpoint = 1000;
    s.blocksPerSecond = 0;
    s.lastCommitAt = QDateTime::currentDateTimeUtc().addSecs(-125);
    emit host.statusAvailable(s);
    QVERIFY(!w.panels().at(0)->summary().contains("ETA"));
    QVERIFY2(w.panels().at(0)->summary().contains("last commit 2 min 05 s ago"),
             qPrintable(w.panels().at(0)->summary()));
    // Behind with nothing committing: the ETA is unknown, not invented.
    s.checkpoint = 900;
    emit host.statusAvailable(s);
    QVERIFY(w.panels().at(0)->summary().contains("ETA unknown"));
    // Unreachable: lag unknown (an outage is not a lag of N).
    s.connection = engine::EngineStatus::Connection::Unreachable;
    emit host.statusAvailable(s);
    QCOMPARE(w.lagText(), QStringLiteral("lag unknown"));
}

void TestMainWindow::labControlsWaitForTheLabToBeSetUp()
{
    // The anvil is up before its demo token and indexer are: a click in between would meet
    // neither (CI once clicked "demo traffic" there and was told it "needs the managed lab").
    engine::EngineHost host;
    ui::MainWindow w(&host);
    engine::EngineStatus s;
    s.connection = engine::EngineStatus::Connection::Connected;
    s.managedDevnet = true;
    s.devnetRunning = true;
    s.environmentId = "env-x";
    s.labNodes = {QStringLiteral("http://127.0.0.1:1")};
    const QStringList actions{"demo", "reorg", "rollback", "proxy", "crash", "reset"};
    emit host.statusAvailable(s);
    for (const QString& a : actions)
        QVERIFY2(!w.labAction(a)->isEnabled(), qPrintable(a));
    s.labReady = true;
    emit host.statusAvailable(s);
    for (const QString& a : actions)
        QVERIFY2(w.labAction(a)->isEnabled(), qPrintable(a));
    s.labReady = false; // a lab reset in progress
    emit host.statusAvailable(s);
    for (const QString& a : actions)
        QVERIFY2(!w.labAction(a)->isEnabled(), qPrintable(a));
}

void TestMainWindow::eventLogFiltersByLevel()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    ui::EventLogView* log = w.eventLog();
    w.appendLog("info", "connected");
    w.appendLog("warning", "node lagging");
    w.appendLog("error", "database is locked");
    w.appendLog("info", "indexing resumed");
    QCOMPARE(log->visibleLines().size(), 4);
    log->setMinimumSeverity(1);
    QCOMPARE(log->visibleLines().size(), 2);
    log->setMinimumSeverity(2);
    QCOMPARE(log->visibleLines().size(), 1);
    QVERIFY(log->visibleLines().first().contains("[error] database is locked"));
    // What is filtered out is kept: widening the filter shows it again.
    log->setMinimumSeverity(0);
    QCOMPARE(log->visibleLines().size(), 4);
    // Errors also reach the status bar, not only the dock.
    QCOMPARE(w.lastErrorText(), QStringLiteral("database is locked"));
    // Bounded.
    for (int i = 0; i < ui::EventLogView::kMaxEntries + 50; ++i)
        log->append("info", QString::number(i));
    QCOMPARE(log->entryCount(), ui::EventLogView::kMaxEntries);
}

void TestMainWindow::tablesShowWhatTheDatabaseHolds()
{
    test::Lab lab;
    ui::MainWindow& w = lab.w;
    lab.start();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY_WITH_TIMEOUT(w.checkpointText().startsWith("checkpoint "), 30000);
    const auto status = lab.last();
    rpc::JsonRpcClient client{QUrl(status.endpoint)};
    lab::DemoToken token(client, chain::Address::fromHex(status.contracts.first(), "token"),
                         lab::DemoToken::defaultSender(client));
    for (int i = 0; i < 5; ++i)
        token.spray(60, quint64(i) * 60, 40); // 300 transfers over 40 holders: more than a page
    const auto head = rpc::EthClient(client).blockNumber();
    QTRY_COMPARE_WITH_TIMEOUT(w.checkpointText(), QStringLiteral("checkpoint %1").arg(head), 30000);

    ui::TableBrowser* transfers = w.transfersBrowser();
    ui::TableBrowser* balances = w.balancesBrowser();
    QAbstractItemModelTester t1(transfers->model(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(balances->model(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(w.backfillBrowser()->model(),
                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    transfers->model()->refresh();
    QTRY_COMPARE_WITH_TIMEOUT(transfers->model()->rowCount(), ui::PagedTableModel::kPageSize,
                              10000);
    QVERIFY(!transfers->model()->atEnd()); // loaded lazily: one page, more on scroll

    auto db = store::Database::open(lab.dbPath());
    const auto scalar = [&](const QString& sql, const QVariantList& args) {
        QSqlQuery q = db->run(sql, args);
        return q.next() ? q.value(0).toString() : QString();
    };
    const QString env = status.environmentId;
    const int total =
        scalar("SELECT count(*) FROM transfer_events WHERE environment_id = ?", {env}).toInt();
    QVERIFY(total >= 300);
    // Newest first, exactly the DB's newest row.
    QCOMPARE(
        transfers->model()->data(transfers->model()->index(0, 0)).toString(),
        scalar("SELECT max(block_number) FROM transfer_events WHERE environment_id = ?", {env}));
    // Scrolling to the end loads the rest, and no more than there is.
    while (transfers->model()->canFetchMore({}) || transfers->model()->isLoading()) {
        transfers->view()->scrollToBottom();
        QTest::qWait(50);
    }
    QCOMPARE(transfers->model()->rowCount(), total);
    // Filter by one holder: exactly the DB's rows for that holder.
    const QString holder =
        scalar("SELECT to_addr FROM transfer_events WHERE environment_id = ? LIMIT 1", {env});
    QTest::keyClicks(transfers->filterEdit(), holder);
    const int forHolder =
        scalar("SELECT count(*) FROM transfer_events WHERE environment_id = ? AND "
               "(from_addr = ? OR to_addr = ? OR contract = ? OR tx_hash = ?)",
               {env, holder, holder, holder, holder})
            .toInt();
    QTRY_COMPARE_WITH_TIMEOUT(transfers->model()->rowCount(), forHolder, 10000);
    // Balances: every holder, largest first, values as stored.
    balances->model()->refresh();
    const int holders =
        scalar("SELECT count(*) FROM token_balances WHERE environment_id = ?", {env}).toInt();
    QTRY_COMPARE_WITH_TIMEOUT(balances->model()->rowCount(), holders, 10000);
    balances->view()->sortByColumn(2, Qt::DescendingOrder);
    QTRY_COMPARE_WITH_TIMEOUT(balances->model()->rowCount(), holders, 10000);
    const QModelIndex topCell = balances->model()->index(0, 2);
    const QString top = balances->model()->fullText(topCell);
    // The demo token's decimals() and symbol(), read from the node by the engine: the
    // display is scaled, the tooltip and copies keep the raw units the database holds.
    const QString tokenShown = balances->model()->fullText(balances->model()->index(0, 0));
    const QString shown = balances->model()->data(topCell).toString();
    QVERIFY2(shown.endsWith(" FSD"), qPrintable(shown));
    QCOMPARE(shown, chain::formatTokenAmount(top, chain::TokenInfo{18, "FSD"}));
    QVERIFY(balances->model()->data(topCell, Qt::ToolTipRole).toString().startsWith(top + " raw"));
    QVERIFY(balances->model()->tokenOf(topCell).has_value());
    QCOMPARE(tokenShown, status.contracts.first());
    QCOMPARE(top, scalar("SELECT balance FROM token_balances WHERE environment_id = ? ORDER BY "
                         "length(balance) DESC, "
                         "balance DESC LIMIT 1",
                         {env}));
    lab.host.shutdown();
}

void TestMainWindow::devnetStopAndStartKeepsTheEnvironment()
{
    test::Lab lab;
    ui::MainWindow& w = lab.w;
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(w.checkpointText().startsWith("checkpoint "), 30000);
    const auto first = lab.last();
    QVERIFY(w.engineToolBar()->devnetAction()->isEnabled());
    QCOMPARE(w.engineToolBar()->devnetAction()->text(), QStringLiteral("Stop devnet"));
    QVERIFY(!w.engineToolBar()->devnetAction()->isCheckable()); // no ✓ beside "Stop devnet"

    w.engineToolBar()->devnetAction()->trigger(); // Ctrl+D: stop the managed anvil
    QTRY_COMPARE_WITH_TIMEOUT(w.engineToolBar()->devnetAction()->text(),
                              QStringLiteral("Start devnet"), 10000);
    QTRY_COMPARE_WITH_TIMEOUT(w.nodeModel()->text(0, ui::NodeTableModel::State),
                              QStringLiteral("offline"), 10000);
    // Chosen on purpose: said as that, with the way back, never "NODE UNREACHABLE ... 502"
    // with Retry. Not red.
    QTRY_VERIFY2_WITH_TIMEOUT(w.engineErrorText().startsWith("DEVNET STOPPED"),
                              qPrintable(w.engineErrorText()), 10000);
    QTest::qWait(1500); // the nodes' polls fail meanwhile: the state stays what it is
    QVERIFY2(w.engineErrorText().startsWith("DEVNET STOPPED"), qPrintable(w.engineErrorText()));
    QCOMPARE(w.findChild<QLabel*>("connectionLabel")->text(), QStringLiteral("devnet stopped"));
    QVERIFY(w.findChild<QPushButton*>("startDevnet")->isVisible());
    QVERIFY(!w.findChild<QPushButton*>("retry")->isVisible());
    rpc::JsonRpcClient probe{QUrl(first.endpoint)};
    probe.setTimeout(std::chrono::milliseconds(500));
    QVERIFY_THROWS_EXCEPTION(rpc::RpcException, probe.callBlocking("eth_blockNumber", {}));
    const QString checkpointWhileDown = w.checkpointField("number");

    // Start devnet, from the banner: the same chain, the same environment.
    w.findChild<QPushButton*>("startDevnet")->click();
    QTRY_COMPARE_WITH_TIMEOUT(w.engineToolBar()->devnetAction()->text(),
                              QStringLiteral("Stop devnet"), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(w.engineErrorText(), QString(), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(w.nodeModel()->text(0, ui::NodeTableModel::State),
                              QStringLiteral("caught up"), 15000);
    rpc::EthClient eth(probe);
    probe.callBlocking("anvil_mine", {"0x3"});
    const auto head = eth.blockNumber();
    QVERIFY(head >= checkpointWhileDown.toULongLong() + 3);
    QTRY_COMPARE_WITH_TIMEOUT(w.checkpointField("number"), QString::number(head), 30000);
    const auto last = lab.last();
    QCOMPARE(last.environmentId, first.environmentId);
    QCOMPARE(last.reorgs, 0); // an outage is not a reorg
    QTRY_COMPARE_WITH_TIMEOUT(w.checkpointField("hash"), eth.blockByNumber(head)->hash.toHex(),
                              15000);
    {
        // The lab's verdict: the database agrees with the restarted node (blocks, logs,
        // balances, outbox), i.e. anvil's state file really carried the chain over.
        auto db = store::Database::open(lab.dbPath());
        QList<chain::Address> contracts;
        for (const QString& c : last.contracts)
            contracts << chain::Address::fromHex(c, "contract");
        store::SqliteContractReader reader(*db);
        const auto report =
            indexer::InvariantChecker(reader, eth).check(last.environmentId, "default", contracts);
        QVERIFY2(report.ok(), qPrintable(report.summary()));
    }
    lab.host.shutdown();
    // The stored chain continued across the outage: no rollback was written.
    auto db = store::Database::open(lab.dbPath());
    QSqlQuery q = db->run("SELECT count(*) FROM reorg_events WHERE environment_id = ?",
                          {first.environmentId});
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 0);
}

void TestMainWindow::stateHoldsStillWhileBlocksArrive()
{
    // Ten transfers a second in a block a second, indexed as they come: the window says
    // "synced" throughout, not synced/syncing with every block, and never 0 events/s.
    test::Lab lab;
    lab.w.resize(1280, 720);
    lab.start(0, [](engine::EngineConfig& c) { c.demoTransfersPerTick = 10; });
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("demo")->isEnabled(), 30000);
    lab.w.labAction("demo")->trigger();
    // Ten seconds of traffic first: the rate is over a window of that.
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().blocksCommitted >= 12, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(
        engine::displayState(lab.last()).kind == engine::DisplayState::Kind::Synced, 30000);
    const qsizetype from = lab.statuses.size();
    const qint64 blocks = lab.last().blocksCommitted;
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().blocksCommitted >= blocks + 10, 60000);
    QStringList seen;
    for (qsizetype i = from; i < lab.statuses.size(); ++i) {
        const auto s = lab.statuses.at(i).at(0).value<engine::EngineStatus>();
        const QString header = engine::text::cursorHeader(s, QDateTime::currentDateTimeUtc());
        if (!header.startsWith("synced | lag 0 blocks") || header.contains(" 0 events/s"))
            seen << header;
    }
    QVERIFY2(seen.isEmpty(), qPrintable(seen.join('\n')));
    lab.host.shutdown();
}

void TestMainWindow::anErrorLeavesWithItsCause()
{
    // The status bar's error stays while what caused it lasts, and leaves when it is over:
    // not a red line about block 405 next to "synced" for the rest of the session.
    engine::EngineHost host;
    ui::MainWindow w(&host);
    engine::EngineStatus s;
    s.connection = engine::EngineStatus::Connection::Connected;
    s.environmentId = "lab-1";
    s.headBlock = 405;
    s.checkpoint = 405;
    emit host.statusAvailable(s);
    auto* label = w.findChild<QLabel*>("errorLabel");
    // The error is logged, then the state it causes arrives.
    w.appendLog("error", "block 405: the node returned fewer logs than its bloom commits to");
    QVERIFY(!label->isHidden());
    s.openAlerts << indexer::CompletenessAlert{};
    emit host.statusAvailable(s);
    emit host.statusAvailable(s);
    QVERIFY(!label->isHidden());
    // The gap is filled: the error goes with it.
    s.openAlerts.clear();
    emit host.statusAvailable(s);
    QVERIFY(label->isHidden());
    QCOMPARE(w.lastErrorText(), QString());
    // An action refused while all is well stays until the state changes.
    w.appendLog("error", "inject reorg: depth 500 is out of range");
    emit host.statusAvailable(s);
    QVERIFY(!label->isHidden());
    s.headBlock = 410; // syncing now
    emit host.statusAvailable(s);
    QVERIFY(label->isHidden());
}

void TestMainWindow::outboxDeliversFromTheApp()
{
    test::WebhookRecorder hook;
    test::Lab lab;
    ui::MainWindow& w = lab.w;
    lab.start(0, [&hook](engine::EngineConfig& config) {
        config.demoTraffic = true;
        config.demoInterval = std::chrono::milliseconds(300);
        config.webhook = hook.url();
        config.indexer.confirmations = 2;
    });
    QTRY_VERIFY_WITH_TIMEOUT(hook.acceptedKeys().size() >= 10, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().outboxDelivered >= 10, 15000);
    const auto s = lab.last();
    QVERIFY(s.safeHeight.has_value());
    QVERIFY(*s.safeHeight + 2 <= *s.headBlock);
    const QString summary = w.panels().at(2)->summary();
    QVERIFY2(summary.contains("delivered") && !summary.contains("No delivery sink"),
             qPrintable(summary));
    QVERIFY2(summary.contains(", 2 confirmations)"), qPrintable(summary));
    lab.host.shutdown();
    auto db = store::Database::open(lab.dbPath());
    QSqlQuery q =
        db->run("SELECT count(*) FROM outbox WHERE environment_id = ? AND delivered_at IS NOT NULL",
                {s.environmentId});
    QVERIFY(q.next());
    QVERIFY(q.value(0).toInt() >= 10);
    const QList<QByteArray> keys = hook.acceptedKeys();
    QCOMPARE(keys.size(),
             QSet<QByteArray>(keys.begin(), keys.end()).size()); // none delivered twice
}

void TestMainWindow::addFactoryAsksTheEngineBeforeAnything()
{
    // The Contracts tab's Add factory...: checked locally, then the code at the address is
    // asked of the engine, which is not running here: said in the dialog, nothing accepted.
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.contractsView()->addFactoryButton()->click();
    ui::AddSourceDialog* dialog = nullptr;
    QTRY_VERIFY((dialog = w.findChild<ui::AddSourceDialog*>()) && dialog->isVisible());
    QCOMPARE(dialog->windowTitle(), QStringLiteral("Add factory"));
    dialog->addressEdit()->setText("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    dialog->eventEdit()->setText("Made(address indexed owner, uint256 child)");
    dialog->childArgEdit()->setText("child");
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();
    QVERIFY2(dialog->message().contains("uint256, not an address"), qPrintable(dialog->message()));
    QVERIFY(!dialog->waitingForNode());
    dialog->eventEdit()->setText("Made(address indexed owner, address child)");
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();
    QTRY_VERIFY2(dialog->message().contains("could not be checked: the engine is not running"),
                 qPrintable(dialog->message()));
    QVERIFY(dialog->isVisible());
    QVERIFY(!w.findChild<QMessageBox*>(QStringLiteral("sourceNotAdded")));
    dialog->reject();
}

// A token indexed on the user's node, a second one added from the Contracts tab: the next
// start, on the settings as saved, indexes both (an environment refuses a run that leaves
// one of its sources out, so the window saved it).
void TestMainWindow::anAddedContractIsIndexedAtTheNextStart()
{
    QTemporaryDir dir;
    lab::Devnet devnet;
    devnet.start();
    rpc::JsonRpcClient node{devnet.url()};
    const chain::Address sender = lab::DemoToken::defaultSender(node);
    const lab::DemoToken first = lab::DemoToken::deploy(
        node, sender, QStringLiteral("First"), QStringLiteral("ONE"), chain::U256("1000000"));
    lab::DemoToken added = lab::DemoToken::deploy(node, sender, QStringLiteral("Added"),
                                                  QStringLiteral("TWO"), chain::U256("1000000"));
    added.spray(3, 0, 10);
    const QString address = added.address().toHex();
    {
        QSettings store;
        store.clear();
        config::AppSettings s;
        s.endpoints = devnet.url().toString();
        s.contracts = first.address().toHex();
        s.environment = QStringLiteral("kept");
        s.save(store);
    }
    engine::EngineConfig base;
    base.dbPath = dir.filePath("kept.sqlite");
    base.demoTraffic = false;
    const auto startFromSettings = [&](engine::EngineHost& host) {
        QSettings store;
        host.start(engine::configFromSettings(config::AppSettings::load(store), base));
    };
    const auto synced = [](const QSignalSpy& statuses) {
        if (statuses.isEmpty())
            return false;
        const auto s = statuses.last().at(0).value<engine::EngineStatus>();
        return engine::displayState(s).kind == engine::DisplayState::Kind::Synced;
    };
    {
        engine::EngineHost host;
        ui::MainWindow w(&host);
        QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
        w.show();
        startFromSettings(host);
        QTRY_VERIFY_WITH_TIMEOUT(synced(statuses), 60000);
        w.drawer()->showPage(w.drawer()->indexOfPage(w.contractsView()));
        w.contractsView()->addContractButton()->click();
        QPointer<ui::AddSourceDialog> dialog;
        QTRY_VERIFY((dialog = w.findChild<ui::AddSourceDialog*>()) && dialog->isVisible());
        dialog->addressEdit()->setText(address);
        dialog->buttons()->button(QDialogButtonBox::Ok)->click();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog || !dialog->isVisible(), 15000);
        QSettings store;
        QVERIFY(
            config::AppSettings::load(store).contractList().contains(address, Qt::CaseInsensitive));
        // Joined: listed as a contract of the environment, no longer backfilling.
        ui::SourceTableModel* sources = w.contractsView()->sources();
        const auto joined = [&] {
            for (int r = 0; r < sources->rowCount(); ++r)
                if (sources->text(r, ui::SourceTableModel::Address) == address)
                    return sources->text(r, ui::SourceTableModel::Kind) ==
                           QStringLiteral("contract");
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(joined() && synced(statuses), 60000);
        host.shutdown();
        QVERIFY(host.waitForStopped(30000));
    }
    engine::EngineHost host;
    ui::MainWindow w(&host);
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    startFromSettings(host);
    QTRY_VERIFY_WITH_TIMEOUT(synced(statuses), 60000);
    const auto s = statuses.last().at(0).value<engine::EngineStatus>();
    QVERIFY2(s.indexerFailure.isEmpty(), qPrintable(s.indexerFailure));
    QCOMPARE(s.environmentId, QStringLiteral("kept"));
    QVERIFY(s.contracts.contains(address, Qt::CaseInsensitive));
    auto db = store::Database::open(base.dbPath);
    QSqlQuery q = db->run(QStringLiteral("SELECT count(*) FROM transfer_events WHERE "
                                         "environment_id = 'kept' AND contract = ?"),
                          {address.toLower()});
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 1 + 3); // its mint and the spray
    host.shutdown();
    QVERIFY(host.waitForStopped(30000));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
