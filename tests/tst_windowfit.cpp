// The main window fits a laptop: at 1280x720 and 1366x768 every panel title, the verdict
// badge and the status bar are inside the screen, however long the texts the engine sends;
// the four charts and the node states are whole without scrolling, the status bar's short
// fields are never cut; and the window's minimum size is at most 960x640.
#include "BottomDrawer.h"
#include "MainWindow.h"
#include "engine/EngineHost.h"
#include "panels/NodeHealthPanel.h"
#include "panels/PanelGrid.h"
#include "panels/PlotPanel.h"
#include "panels/ReorgPanel.h"
#include "panels/StateStrip.h"
#include "report/ReportExporter.h"
#include "widgets/ElidedLabel.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QScrollBar>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

using namespace forkscope;

namespace {

// A status with the longest texts a real run shows: a long environment id, a remote
// endpoint, an error, a syncing indexer with a big lag, three nodes.
engine::EngineStatus longTexts()
{
    engine::EngineStatus s;
    s.connection = engine::EngineStatus::Connection::Connected;
    s.endpoint = QStringLiteral("https://eth-mainnet.example-provider.io/v2/0123456789abcdef");
    s.managedDevnet = false;
    s.chainId = 31337;
    s.headBlock = 123456789;
    s.checkpoint = 123000000;
    s.dbPath = QStringLiteral("/home/someone/projects/forkscope-lab/data/forkscope-lab.sqlite");
    s.environmentId = QStringLiteral("lab-20261201-183600-1a2b3c4d5e6f");
    s.eventsPerSecond = 123456;
    s.blocksPerSecond = 120;
    s.lastCommitAt = QDateTime::currentDateTimeUtc();
    s.updatedAt = s.lastCommitAt;
    s.message = QStringLiteral("a long error that a provider sent back to us, verbatim");
    s.storedReadAt = s.lastCommitAt; // the outbox counts were read
    s.outboxPending = 1234567;
    s.safeHeight = 123456700;
    s.confirmations = 12;
    for (int i = 0; i < 3; ++i) {
        health::NodeHealth n;
        n.url = QStringLiteral("https://node-%1.example-provider.io/v2/0123456789abcdef").arg(i);
        n.state = health::NodeState::CaughtUp;
        n.head = 123456789;
        s.health.nodes << n;
    }
    s.health.at = s.updatedAt;
    return s;
}

// `w` is wholly inside `screen` (window coordinates) and visible.
void verifyOnScreen(const QWidget* w, const QRect& screen, const QString& what)
{
    QVERIFY2(w->isVisible(), qPrintable(what + " is hidden"));
    const QRect r(w->mapTo(w->window(), QPoint(0, 0)), w->size());
    QVERIFY2(screen.contains(r), qPrintable(QStringLiteral("%1 at %2,%3 %4x%5 is outside %6x%7")
                                                .arg(what)
                                                .arg(r.x())
                                                .arg(r.y())
                                                .arg(r.width())
                                                .arg(r.height())
                                                .arg(screen.width())
                                                .arg(screen.height())));
}

// What a first run of the lab shows: the managed anvil behind two fault proxies, indexing
// the demo token, both nodes caught up.
engine::EngineStatus labRun(int reorgs)
{
    engine::EngineStatus s;
    s.connection = engine::EngineStatus::Connection::Connected;
    s.managedDevnet = true;
    s.devnetRunning = true;
    s.labReady = true;
    s.labNodes = {QStringLiteral("http://127.0.0.1:34787"),
                  QStringLiteral("http://127.0.0.1:40257")};
    s.endpoint = s.labNodes.first();
    s.chainId = 31337;
    s.headBlock = 404;
    s.checkpoint = 404;
    s.dbPath = QStringLiteral("/home/someone/.local/share/Forkscope/forkscope.sqlite");
    s.environmentId = QStringLiteral("lab-20261201-234950-162");
    s.indexerState = QStringLiteral("synced");
    s.updatedAt = QDateTime::currentDateTimeUtc();
    s.lastCommitAt = s.updatedAt;
    for (const QString& url : s.labNodes) {
        health::NodeHealth n;
        n.url = url;
        n.state = health::NodeState::CaughtUp;
        n.head = 404;
        s.health.nodes << n;
    }
    s.health.at = s.updatedAt;
    s.health.readyHeight = 404;
    for (int i = 0; i < reorgs; ++i)
        s.recentReorgs << engine::ReorgMark{
            i + 1, s.updatedAt.addSecs(-60 + i), 3, QStringLiteral("hash mismatch"), 390 + i, 93};
    return s;
}

// Every pixel of `w` is on screen: not cut by its window, a scroll area or a sibling.
void verifyWhollyVisible(const QWidget* w, const QString& what)
{
    QVERIFY2(w->isVisible(), qPrintable(what + " is hidden"));
    const QRect seen = w->visibleRegion().boundingRect();
    QVERIFY2(seen == w->rect(), qPrintable(QStringLiteral("%1: %2x%3 of %4x%5 visible")
                                               .arg(what)
                                               .arg(seen.width())
                                               .arg(seen.height())
                                               .arg(w->width())
                                               .arg(w->height())));
}

} // namespace

class TestWindowFit : public QObject
{
    Q_OBJECT
private slots:
    void minimumSize();
    void fitsTheScreen_data();
    void fitsTheScreen();
    void panelsStackWhenNarrow();
    void fourChartsAndNodeStatesWithoutScrolling_data();
    void fourChartsAndNodeStatesWithoutScrolling();
    void statusBarFieldsAreWhole_data();
    void statusBarFieldsAreWhole();
    void nodesTableShowsWholeUrlsAndHeaders();
};

void TestWindowFit::minimumSize()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    emit host.statusAvailable(longTexts());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
    QVERIFY2(min.width() <= 960 && min.height() <= 640,
             qPrintable(QStringLiteral("minimum %1x%2").arg(min.width()).arg(min.height())));
}

void TestWindowFit::fitsTheScreen_data()
{
    QTest::addColumn<QSize>("screen");
    QTest::addColumn<bool>("failed"); // the engine failed with a long reason
    QTest::newRow("1280x720") << QSize(1280, 720) << false;
    QTest::newRow("1366x768") << QSize(1366, 768) << false;
    QTest::newRow("1280x720, failed") << QSize(1280, 720) << true;
}

void TestWindowFit::fitsTheScreen()
{
    QFETCH(QSize, screen);
    QFETCH(bool, failed);
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // The longest texts arrive after the window is up, as they do in a run.
    engine::EngineStatus s = longTexts();
    if (failed) {
        // Before any data: every panel says why none comes, and one long line must not
        // widen them past the screen.
        s = engine::EngineStatus{};
        s.connection = engine::EngineStatus::Connection::Failed;
        s.message = QStringLiteral(
            "anvil not found (looked at: /opt/forkscope/bin/../libexec/forkscope/anvil, anvil "
            "on PATH). Install it with `npm install @foundry-rs/anvil-linux-amd64@1.7.1` and "
            "put its bin/anvil on PATH or set FORKSCOPE_ANVIL to it");
    }
    emit host.statusAvailable(s);
    w.resize(screen);
    QCoreApplication::processEvents();
    QTRY_COMPARE(w.size(), screen);
    const QRect area(QPoint(0, 0), screen);
    for (ui::PlotPanel* p : w.panels()) {
        auto* title = p->findChild<QLabel*>(QStringLiteral("title"));
        QVERIFY(title);
        verifyOnScreen(title, area, p->title() + " title");
    }
    verifyOnScreen(w.verdictBadge(), area, "verdict badge");
    // Not scrolled away or hidden behind a toolbar's extension button either.
    for (ui::PlotPanel* p : w.panels()) {
        auto* title = p->findChild<QLabel*>(QStringLiteral("title"));
        QCOMPARE(title->visibleRegion().boundingRect(), title->rect());
    }
    QCOMPARE(w.verdictBadge()->visibleRegion().boundingRect(), w.verdictBadge()->rect());
    verifyOnScreen(w.statusBar(), area, "status bar");
}

void TestWindowFit::panelsStackWhenNarrow()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    emit host.statusAvailable(longTexts());
    auto* grid = w.findChild<ui::PanelGrid*>(QStringLiteral("panelGrid"));
    QVERIFY(grid);
    w.resize(1280, 720);
    QTRY_COMPARE(grid->columns(), 2);
    w.resize(800, 640);
    QTRY_COMPARE(grid->columns(), 1);
    QTRY_COMPARE(w.size(), QSize(800, 640));
    // One above the other: the second panel starts below the first, and the column scrolls.
    const QList<ui::PlotPanel*> panels = w.panels();
    QTRY_COMPARE(panels[1]->x(), panels[0]->x());
    QVERIFY(panels[1]->y() >= panels[0]->y() + panels[0]->height());
    w.resize(1280, 720);
    QTRY_COMPARE(grid->columns(), 2);
    QTRY_COMPARE(panels[1]->y(), panels[0]->y());
}

void TestWindowFit::fourChartsAndNodeStatesWithoutScrolling_data()
{
    QTest::addColumn<QSize>("screen");
    QTest::addColumn<int>("reorgs");
    QTest::addColumn<bool>("logged"); // the event log has something to say
    QTest::newRow("1280x720") << QSize(1280, 720) << 0 << false;
    QTest::newRow("1280x720, the reorg list shown") << QSize(1280, 720) << 12 << false;
    QTest::newRow("1280x720, a log message") << QSize(1280, 720) << 1 << true;
    QTest::newRow("1366x768, the reorg list shown") << QSize(1366, 768) << 3 << true;
}

void TestWindowFit::fourChartsAndNodeStatesWithoutScrolling()
{
    QFETCH(QSize, screen);
    QFETCH(int, reorgs);
    QFETCH(bool, logged);
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.resize(screen);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_COMPARE(w.size(), screen);
    emit host.statusAvailable(labRun(reorgs));
    if (logged)
        w.appendLog("warning", "lab: node 2 now goes offline");
    QCoreApplication::processEvents();
    auto* grid = w.findChild<ui::PanelGrid*>(QStringLiteral("panelGrid"));
    QVERIFY(grid);
    QTRY_COMPARE(grid->columns(), 2);
    // Nothing to scroll to: the four charts, whole, with room for their data.
    QTRY_COMPARE(grid->verticalScrollBar()->maximum(), 0);
    for (ui::PlotPanel* p : w.panels()) {
        if (!p->isChartVisible())
            continue; // the outbox without a sink says why instead
        verifyWhollyVisible(p->plot(), p->title() + " chart");
        QVERIFY2(p->plot()->axisRect()->rect().height() >= 100,
                 qPrintable(QStringLiteral("%1: %2 px of data")
                                .arg(p->title())
                                .arg(p->plot()->axisRect()->rect().height())));
    }
    // The node states, and what their colours mean.
    ui::NodeHealthPanel* health = w.nodeHealthPanel();
    verifyWhollyVisible(health->stateStrip(), "node state strip");
    auto* legend = health->findChild<QLabel*>(QStringLiteral("nodeStateLegend"));
    QVERIFY(legend);
    verifyWhollyVisible(legend, "node state legend");
    if (reorgs > 0)
        verifyWhollyVisible(w.reorgPanel()->reorgList(), "reorg list");
    // The tabs under the charts cost one row until asked for; the newest message is on it.
    QVERIFY(!w.drawer()->isOpen());
    QVERIFY2(w.drawer()->height() <= 40, qPrintable(QString::number(w.drawer()->height())));
    QCOMPARE(w.drawer()->tabBar()->count(), 9);
    verifyWhollyVisible(w.drawer()->tabBar(), "the tabs under the charts");
    QCOMPARE(w.drawer()->tabBar()->x(), 0);
    QVERIFY2(w.drawer()->tabBar()->tabRect(8).right() < w.drawer()->tabBar()->width(),
             "the last tab is cut");
    if (logged)
        QVERIFY2(w.drawer()->noteText().contains("node 2 now goes offline"),
                 qPrintable(w.drawer()->noteText()));
}

void TestWindowFit::statusBarFieldsAreWhole_data()
{
    QTest::addColumn<QSize>("screen");
    QTest::addColumn<bool>("exported");
    QTest::addColumn<bool>("error");
    QTest::newRow("1280x720") << QSize(1280, 720) << false << false;
    QTest::newRow("1280x720, after an export") << QSize(1280, 720) << true << false;
    QTest::newRow("1280x720, after an export and an error") << QSize(1280, 720) << true << true;
}

void TestWindowFit::statusBarFieldsAreWhole()
{
    QFETCH(QSize, screen);
    QFETCH(bool, exported);
    QFETCH(bool, error);
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.resize(screen);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    emit host.statusAvailable(labRun(0));
    if (exported)
        emit w.reportExporter()->exportFinished(
            "/home/someone/Documents/forkscope-report-lab-20261201.pdf", true, QString());
    if (error)
        w.appendLog("error", "reorg deeper than --max-reorg-depth at block 405");
    QCoreApplication::processEvents();
    // The state, the heights, the lag, the environment and the chain, whole; the node at
    // least up to its URL ("lab node: http://127.0.0.1:34787", its explanation may give up
    // width).
    for (const char* name :
         {"connectionLabel", "headLabel", "lagLabel", "envLabel", "chainLabel", "nodeLabel"}) {
        auto* l = w.statusBar()->findChild<QLabel*>(QString::fromLatin1(name));
        QVERIFY2(l, name);
        const QString whole = l->text().section(QStringLiteral(" ("), 0, 0);
        QTRY_VERIFY2(l->width() >= QFontMetrics(l->font()).horizontalAdvance(whole),
                     qPrintable(QStringLiteral("%1 \"%2\" is %3 px wide")
                                    .arg(QLatin1String(name), l->text())
                                    .arg(l->width())));
    }
    if (exported) {
        auto* notice = w.statusBar()->findChild<QWidget*>(QStringLiteral("exportNotice"));
        QVERIFY(notice && notice->isVisible());
        // The file's name, whole: it is the button that opens the file.
        auto* open = notice->findChild<QToolButton*>(QStringLiteral("openExport"));
        QVERIFY(open && open->isVisible());
        QCOMPARE(open->text(), QStringLiteral("forkscope-report-lab-20261201.pdf"));
        QVERIFY2(
            open->width() >= open->sizeHint().width(),
            qPrintable(
                QStringLiteral("%1 of %2 px").arg(open->width()).arg(open->sizeHint().width())));
        verifyWhollyVisible(open, "the exported file's name");
    }
}

void TestWindowFit::nodesTableShowsWholeUrlsAndHeaders()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    emit host.statusAvailable(labRun(0));
    w.drawer()->showPage(1); // Nodes, as Alt+2 or a click on its tab
    auto* table = w.findChild<QTableView*>(QStringLiteral("nodeTable"));
    QVERIFY(table);
    QTRY_VERIFY(table->isVisible());
    QCOMPARE(table->model()->rowCount(), 2);
    const QFontMetrics fm(table->font());
    const QFontMetrics header(table->horizontalHeader()->font());
    const int margin =
        table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1;
    // The two lab nodes differ only in their port: both URLs whole, and every header.
    for (int c = 0; c < table->model()->columnCount() - 1; ++c) {
        const QString title = table->model()->headerData(c, Qt::Horizontal).toString();
        QVERIFY2(
            table->columnWidth(c) >= header.horizontalAdvance(title),
            qPrintable(
                QStringLiteral("header \"%1\" in %2 px").arg(title).arg(table->columnWidth(c))));
        for (int r = 0; r < 2; ++r) {
            const QModelIndex cell = table->model()->index(r, c);
            const QString text = cell.data().toString();
            QVERIFY2(fm.horizontalAdvance(text) <= table->visualRect(cell).width() - 2 * margin,
                     qPrintable(QStringLiteral("\"%1\" in %2 px")
                                    .arg(text)
                                    .arg(table->visualRect(cell).width())));
        }
    }
    QCOMPARE(table->model()->index(1, 0).data().toString(),
             QStringLiteral("http://127.0.0.1:40257"));
}

QTEST_MAIN(TestWindowFit)
#include "tst_windowfit.moc"
