// The main window fits a laptop: at 1280x720 and 1366x768 every panel title,
// the verdict badge and the status bar are inside the screen, however long the texts the
// engine sends; and the window's minimum size is at most 960x640.
#include "MainWindow.h"
#include "engine/EngineHost.h"
#include "panels/PanelGrid.h"
#include "panels/PlotPanel.h"

#include <QLabel>
#include <QStatusBar>
#include <QtTest>

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

} // namespace

class TestWindowFit : public QObject
{
    Q_OBJECT
private slots:
    void minimumSize();
    void fitsTheScreen_data();
    void fitsTheScreen();
    void panelsStackWhenNarrow();
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

QTEST_MAIN(TestWindowFit)
#include "tst_windowfit.moc"
