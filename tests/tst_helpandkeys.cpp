// Keyboard and discoverability: Settings on Ctrl+, (QKeySequence::Preferences is
// empty on this platform), Alt+1..7 for the tabs below the charts, Help > Getting started and
// Help > Glossary, and tooltips that explain the jargon from the same glossary.
#include "BottomDrawer.h"
#include "EventLogView.h"
#include "GuiLab.h"
#include "MainWindow.h"
#include "TableBrowser.h"
#include "engine/EngineHost.h"
#include "help/Glossary.h"
#include "help/HelpDialog.h"
#include "panels/PlotPanel.h"
#include "widgets/ElidedLabel.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QInputDialog>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace forkscope;
using test::actionNamed;

namespace {

// The part of `w` the window shows: its rectangle clipped by each of its parents.
QRect onScreen(const QWidget* w)
{
    QRect seen(w->mapTo(w->window(), QPoint()), w->size());
    for (const QWidget* p = w->parentWidget(); p; p = p->parentWidget())
        seen &= QRect(p->mapTo(p->window(), QPoint()), p->size());
    return seen;
}

} // namespace

class TestHelpAndKeys : public QObject
{
    Q_OBJECT
private slots:
    void shortcuts();
    void helpPages();
    void jargonIsExplained_data();
    void jargonIsExplained();
    void recentDatabases();
    void openPostgresDatabaseAsksUntilTheUrlIsOne();
    void tabReachesEveryControlAndFocusIsShown();

private:
    QTemporaryDir m_config; // QSettings go here, not to ~/.config
};

void TestHelpAndKeys::shortcuts()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(actionNamed(w, "&Settings...")->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Comma));
    QAction* toTransfers = actionNamed(w, "Go to Transfers");
    QVERIFY(toTransfers);
    QCOMPARE(toTransfers->shortcut(), QKeySequence(Qt::ALT | Qt::Key_4));
    QWidget* transfers = w.transfersBrowser();
    QWidget* log = w.eventLog();
    // The tabs under the charts start closed: nothing of them is seen until asked for.
    QVERIFY(!w.drawer()->isOpen());
    QVERIFY(transfers->visibleRegion().isEmpty());
    toTransfers->trigger();
    QVERIFY(w.drawer()->isOpen());
    QTRY_VERIFY(!transfers->visibleRegion().isEmpty());
    QTRY_VERIFY(log->visibleRegion().isEmpty());
    actionNamed(w, "Go to Event log")->trigger();
    QTRY_VERIFY(!log->visibleRegion().isEmpty());
    // Ctrl+J closes them again (and opens them where they were).
    QAction* toggle = w.findChild<QAction*>(QStringLiteral("toggleDrawer"));
    QVERIFY(toggle);
    QCOMPARE(toggle->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_J));
    toggle->trigger();
    QVERIFY(!w.drawer()->isOpen());
    QTRY_VERIFY(log->visibleRegion().isEmpty());
}

void TestHelpAndKeys::helpPages()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    actionNamed(w, "G&lossary")->trigger();
    actionNamed(w, "&Getting started")->trigger();
    const QList<ui::HelpDialog*> pages = w.findChildren<ui::HelpDialog*>();
    QCOMPARE(pages.size(), 2);
    QStringList titles;
    for (ui::HelpDialog* p : pages) {
        titles << p->windowTitle();
        QVERIFY(p->isVisible());
    }
    titles.sort();
    QCOMPARE(titles, (QStringList{"Getting started", "Glossary"}));
    for (ui::HelpDialog* p : pages) {
        if (p->windowTitle() == "Glossary")
            for (const ui::GlossaryEntry& e : ui::glossary())
                QVERIFY2(p->plainText().contains(e.term), qPrintable(e.term));
        else
            QVERIFY(p->plainText().contains("Inject reorg"));
    }
}

void TestHelpAndKeys::jargonIsExplained_data()
{
    QTest::addColumn<int>("panel");
    QTest::addColumn<QString>("term");
    QTest::newRow("safe height") << 2 << "safe height";
    QTest::newRow("ready height") << 3 << "ready height";
    QTest::newRow("absence") << 1 << "absence";
    QTest::newRow("cursor lag") << 0 << "cursor lag";
}

void TestHelpAndKeys::jargonIsExplained()
{
    QFETCH(int, panel);
    QFETCH(QString, term);
    engine::EngineHost host;
    ui::MainWindow w(&host);
    QVERIFY(!ui::glossaryMeaning(term).isEmpty());
    auto* summary = w.panels().at(panel)->findChild<ui::ElidedLabel*>(QStringLiteral("summary"));
    QVERIFY(summary);
    QVERIFY2(summary->explanation().contains(term + ": " + ui::glossaryMeaning(term)),
             qPrintable(summary->explanation()));
    QVERIFY2(actionNamed(w, "Crash the indexer...")->toolTip().contains("crash points: "),
             qPrintable(actionNamed(w, "Crash the indexer...")->toolTip()));
}

void TestHelpAndKeys::recentDatabases()
{
    qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
    QSettings().remove("recentDatabases");
    engine::EngineHost host;
    ui::MainWindow w(&host);
    auto* recent = w.findChild<QMenu*>(QStringLiteral("recentDatabases"));
    QVERIFY(recent);
    QVERIFY(!recent->isEnabled()); // nothing opened yet
    engine::EngineStatus s;
    s.dbPath = "/tmp/a.sqlite";
    emit host.statusAvailable(s);
    s.dbPath = "/tmp/b.sqlite";
    emit host.statusAvailable(s);
    s.dbPath = "/tmp/a.sqlite";
    emit host.statusAvailable(s);
    QCOMPARE(ui::MainWindow::recentDatabases(), (QStringList{"/tmp/a.sqlite", "/tmp/b.sqlite"}));
    QCOMPARE(recent->actions().size(), 2);
    QSignalSpy chosen(&w, &ui::MainWindow::databaseChosen);
    recent->actions().at(1)->trigger();
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen[0][0].toString(), QStringLiteral("/tmp/b.sqlite"));
    QCOMPARE(actionNamed(w, "&Open database...")->shortcut(), QKeySequence(QKeySequence::Open));
}

// File > Open PostgreSQL database...: a URL that is not one is said in the dialog,
// which asks again; a good one restarts the engine on it; cancelling changes nothing.
void TestHelpAndKeys::openPostgresDatabaseAsksUntilTheUrlIsOne()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    QAction* open = w.findChild<QAction*>(QStringLiteral("openPostgresDatabase"));
    QVERIFY(open);
    QSignalSpy chosen(&w, &ui::MainWindow::databaseChosen);
    // Answers the dialog each time it shows, as a user types; the last one cancels.
    QStringList answers{QStringLiteral("/tmp/lab.sqlite"),
                        QStringLiteral("postgresql://team:pw@127.0.0.1:5432"),
                        QStringLiteral(" postgresql://team:pw@127.0.0.1:5432/index ")};
    QStringList labels;
    QTimer driver;
    driver.setInterval(20);
    connect(&driver, &QTimer::timeout, [&] {
        auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
        if (!dialog || !dialog->isVisible())
            return;
        labels << dialog->labelText();
        if (answers.isEmpty()) {
            dialog->reject();
            return;
        }
        dialog->setTextValue(answers.takeFirst());
        dialog->accept();
    });
    driver.start();
    open->trigger(); // returns once a good URL was given
    QCOMPARE(labels.size(), 3);
    QVERIFY2(labels.at(0).contains("PostgreSQL URL of a database") &&
                 labels.at(0).contains("indexes into it"),
             qPrintable(labels.at(0)));
    QVERIFY2(labels.at(1).contains("/tmp/lab.sqlite is not a postgresql:// URL"),
             qPrintable(labels.at(1)));
    QVERIFY2(labels.at(2).contains("names no database"), qPrintable(labels.at(2)));
    QVERIFY2(!labels.at(2).contains(":pw@"), qPrintable(labels.at(2))); // no password shown
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.at(0).at(0).toString(),
             QStringLiteral("postgresql://team:pw@127.0.0.1:5432/index"));
    // Cancelled: nothing is opened.
    open->trigger();
    QCOMPARE(labels.size(), 4);
    QCOMPARE(chosen.size(), 1);
}

void TestHelpAndKeys::tabReachesEveryControlAndFocusIsShown()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.resize(1280, 720);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QApplication::setActiveWindow(&w);
    // With the tabs under the charts open, as a user who looks at the tables has them.
    actionNamed(w, "Go to Transfers")->trigger();
    w.findChild<QComboBox*>("timeRange")->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(QApplication::focusWidget());
    QList<QWidget*> visited;
    QStringList trail;
    for (int i = 0; i < 200; ++i) {
        QWidget* f = QApplication::focusWidget();
        QVERIFY(f);
        trail << QString::fromLatin1(f->metaObject()->className()) + "/" + f->objectName();
        // Focus never sits on something the user cannot see.
        QVERIFY2(f->isVisible() && f->width() > 0 && f->height() > 0, qPrintable(trail.last()));
        // (A tab that takes the focus comes to the front.) Measured as the part of it inside
        // every parent, not by visibleRegion(): that leaves out what opaque children cover,
        // which is all of a frameless scroll area.
        QTRY_VERIFY2(!onScreen(f).isEmpty(), qPrintable(trail.last()));
        // A focused control is drawn as focused: the style gets State_HasFocus for it.
        QVERIFY2(f->hasFocus(), qPrintable(trail.last()));
        if (visited.contains(f))
            break;
        visited << f;
        QTest::keyClick(f, Qt::Key_Tab);
    }
    const auto reached = [&](const char* className, const QString& name = {}) {
        for (QWidget* v : visited)
            if (v->inherits(className) && (name.isEmpty() || v->objectName() == name))
                return true;
        return false;
    };
    // The charts' one range, Fit and Follow live; the drawer's tabs; the tables; the
    // filter fields.
    int ranges = 0;
    for (QWidget* v : visited)
        ranges += v->objectName() == QLatin1String("timeRange");
    QVERIFY2(ranges == 1, qPrintable(trail.join(", ")));
    QVERIFY2(reached("QTabBar", "drawerTabs"), qPrintable(trail.join(", ")));
    QVERIFY2(reached("QToolButton", "fit"), qPrintable(trail.join(", ")));
    QVERIFY2(reached("QCheckBox", "followLive"), qPrintable(trail.join(", ")));
    QVERIFY2(reached("QTableView"), qPrintable(trail.join(", ")));
    // The cycle closes: Tab comes back to where it started instead of getting stuck.
    // (Ten stops: one time range bar, the drawer's tabs, the open table's controls.)
    QVERIFY2(visited.size() >= 10 && visited.size() < 200, qPrintable(trail.join(", ")));
}

QTEST_MAIN(TestHelpAndKeys)
#include "tst_helpandkeys.moc"
