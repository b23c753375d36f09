// Failures look like failures: a directory given as the database, an
// unreachable --rpc and no contracts to index each show the error banner with the reason
// and its actions, the panels say why no data comes, and actions that cannot work are
// disabled. Driven through a real EngineHost, as the app runs it.
#include "DropFilePermissionOverride.h"
#include "EngineToolBar.h"
#include "GuiLab.h"
#include "MainWindow.h"
#include "engine/EngineHost.h"
#include "lab/Devnet.h"
#include "panels/PlotPanel.h"
#include "store/Database.h"

#include <QAction>
#include <QApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QFileDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;
using test::actionNamed;

namespace {

const QString kToken = QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3");

// A loopback port nothing listens on.
quint16 closedPort()
{
    QTcpServer s;
    if (!s.listen(QHostAddress::LocalHost))
        return 1;
    return s.serverPort();
}

// An external node that refuses connections, a database at `db`, and the contracts.
engine::EngineConfig externalNode(const QString& db, const QStringList& contracts)
{
    engine::EngineConfig config;
    config.managedDevnet = false;
    config.rpcUrl = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(closedPort()));
    config.dbPath = db;
    config.contracts = contracts;
    return config;
}

} // namespace

class TestFailureState : public QObject
{
    Q_OBJECT
private slots:
    void directoryAsDatabase();
    void readOnlyDatabase();
    void unreachableNode();
    void noContractsToIndex_data();
    void noContractsToIndex();
    void retrySaysWhatItFound();
    void labWaitsForAUsableDatabase();
    void bannerActionsRestartAndRecoveryClearsIt();

private:
    QTemporaryDir m_dir;
};

void TestFailureState::directoryAsDatabase()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.show();
    host.start(externalNode(m_dir.path() /* a directory */, {kToken}));
    QTRY_VERIFY_WITH_TIMEOUT(w.engineErrorText().startsWith("FAILED"), 20000);
    QVERIFY2(w.engineErrorText().contains(m_dir.path()), qPrintable(w.engineErrorText()));
    for (const char* name : {"chooseDatabase", "settings", "retry"}) {
        auto* b = w.findChild<QPushButton*>(QString::fromLatin1(name));
        QVERIFY2(b && b->isVisible(), name);
    }
    // The indexer's panels say why, instead of "Waiting for the indexer" (node health polls
    // the node on its own and may well have data).
    for (ui::PlotPanel* p : w.panels().mid(0, 3))
        QVERIFY2(p->placeholderText().startsWith("failed: "),
                 qPrintable(p->title() + ": " + p->placeholderText()));
    QVERIFY(!actionNamed(w, "Pause indexing")->isEnabled());
    QVERIFY(!actionNamed(w, "Verify stored data against the node")->isEnabled());
    host.shutdown();
}

void TestFailureState::readOnlyDatabase()
{
    // A database the user may read but not write: refused with the reason, never opened
    // read-write behind their back, and left byte for byte as it was.
    const QString path = m_dir.filePath("readonly.sqlite");
    store::Database::open(path);
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::ReadGroup |
                                            QFileDevice::ReadOther));
    const auto digest = [&] {
        QFile f(path);
        return f.open(QIODevice::ReadOnly)
                   ? QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256)
                   : QByteArray();
    };
    const QByteArray before = digest();
    {
        // CI runs as root, which writes read-only files: drop that for this test, before
        // the engine's threads exist (they inherit it).
        test::DropFilePermissionOverride asUser;
        engine::EngineHost host;
        ui::MainWindow w(&host);
        w.show();
        host.start(externalNode(path, {kToken}));
        QTRY_VERIFY_WITH_TIMEOUT(w.engineErrorText().startsWith("FAILED"), 20000);
        QVERIFY2(w.engineErrorText().contains("read-only") && w.engineErrorText().contains(path),
                 qPrintable(w.engineErrorText()));
        auto* choose = w.findChild<QPushButton*>("chooseDatabase");
        QVERIFY(choose && choose->isVisible());
        QVERIFY(!actionNamed(w, "Pause indexing")->isEnabled());
        host.shutdown();
    }
    QCOMPARE(digest(), before);
}

void TestFailureState::unreachableNode()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.show();
    host.start(externalNode(m_dir.filePath("unreachable.sqlite"), {kToken}));
    QTRY_VERIFY_WITH_TIMEOUT(w.engineErrorText().startsWith("NODE UNREACHABLE"), 20000);
    // Not the database's fault: no Choose database... here.
    QVERIFY(!w.findChild<QPushButton*>(QStringLiteral("chooseDatabase"))->isVisible());
    QVERIFY(w.findChild<QPushButton*>(QStringLiteral("retry"))->isVisible());
    QVERIFY2(w.panels().first()->placeholderText() == "node unreachable",
             qPrintable(w.panels().first()->placeholderText()));
    host.shutdown();
}

void TestFailureState::noContractsToIndex_data()
{
    // `forkscope --rpc URL` with nothing configured yet: what is wrong first is what the
    // banner names. A dead node is the node's fault, not the missing contracts'.
    QTest::addColumn<bool>("nodeAnswers");
    QTest::addColumn<QString>("banner");
    QTest::newRow("dead node") << false
                               << "NODE UNREACHABLE - connection error from http://127.0.0.1:";
    QTest::newRow("live node") << true << "FAILED - no contracts configured";
}

void TestFailureState::noContractsToIndex()
{
    QFETCH(bool, nodeAnswers);
    QFETCH(QString, banner);
    lab::Devnet anvil;
    engine::EngineConfig config = externalNode(m_dir.filePath("nocontracts.sqlite"), {});
    if (nodeAnswers) {
        anvil.start();
        config.rpcUrl = anvil.url();
    }
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.resize(1280, 720);
    w.show();
    QSignalSpy logs(&host, &engine::EngineHost::logMessage);
    host.start(config);
    QTRY_VERIFY2_WITH_TIMEOUT(w.engineErrorText().startsWith(banner),
                              qPrintable(w.engineErrorText()), 20000);
    // The other problem is said beside it, never hidden by the first.
    if (!nodeAnswers) {
        QVERIFY2(w.engineErrorText().contains(config.rpcUrl.toString()),
                 qPrintable(w.engineErrorText()));
        QVERIFY2(w.engineErrorText().contains("Also: no contracts configured"),
                 qPrintable(w.engineErrorText()));
        QCOMPARE(w.panels().first()->placeholderText(), QStringLiteral("node unreachable"));
    }
    QVERIFY(w.findChild<QPushButton*>(QStringLiteral("settings"))->isVisible());
    QVERIFY(!actionNamed(w, "Pause indexing")->isEnabled());
    // The status bar names the environment the log says is being indexed.
    bool logged = false;
    for (const auto& l : logs)
        logged = logged || l.at(1).toString() == QLatin1String("indexing environment default");
    QVERIFY(logged);
    QTRY_COMPARE_WITH_TIMEOUT(w.environmentText(), QStringLiteral("env default"), 10000);
    host.shutdown();
}

void TestFailureState::retrySaysWhatItFound()
{
    // Retry on a node that still does not answer: the banner says when it started again,
    // and the log that the node still does not answer, instead of nothing visible at all.
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.resize(1280, 720);
    w.show();
    const engine::EngineConfig config = externalNode(m_dir.filePath("retry.sqlite"), {kToken});
    QObject::connect(&w, &ui::MainWindow::engineRestartRequested, &host,
                     [&host, &config] { host.start(config); }); // as GuiApp does
    QSignalSpy logs(&host, &engine::EngineHost::logMessage);
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(w.engineErrorText().startsWith("NODE UNREACHABLE"), 20000);
    QVERIFY(!w.engineErrorText().contains("Started again"));
    w.findChild<QPushButton*>(QStringLiteral("retry"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(w.engineErrorText().contains("Started again at"), 20000);
    QVERIFY2(w.engineErrorText().startsWith("NODE UNREACHABLE") &&
                 w.engineErrorText().contains("(attempt 2)"),
             qPrintable(w.engineErrorText()));
    const auto loggedStill = [&] {
        for (const auto& l : logs)
            if (l.at(1).toString().startsWith("retry: ") &&
                l.at(1).toString().contains("still does not answer"))
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(loggedStill(), 20000);
    host.shutdown();
}

void TestFailureState::labWaitsForAUsableDatabase()
{
    // The managed lab on a database the indexer cannot open: the lab sets itself up, but
    // nothing of it is offered, since nothing would index what it does.
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.resize(1280, 720);
    w.show();
    QSignalSpy logs(&host, &engine::EngineHost::logMessage);
    engine::EngineConfig config;
    config.dbPath = m_dir.path(); // a directory
    config.demoTraffic = false;
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(w.engineErrorText().startsWith("FAILED"), 30000);
    const auto deployed = [&] {
        for (const auto& l : logs)
            if (l.at(1).toString().startsWith("demo token deployed"))
                return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(deployed(), 60000);
    // A few statuses after the lab said it is set up: still nothing to click.
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    QTRY_VERIFY_WITH_TIMEOUT(statuses.size() >= 5, 20000);
    for (const char* name : {"reorg", "rollback", "crash", "reset", "proxy", "demo"})
        QVERIFY2(!w.labAction(name)->isEnabled(), name);
    QVERIFY(w.engineErrorText().startsWith("FAILED"));
    host.shutdown();
}

void TestFailureState::bannerActionsRestartAndRecoveryClearsIt()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    QSignalSpy retry(&w, &ui::MainWindow::engineRestartRequested);
    engine::EngineStatus s;
    s.connection = engine::EngineStatus::Connection::Failed;
    s.message = QStringLiteral("cannot open database /x");
    emit host.statusAvailable(s);
    w.findChild<QPushButton*>(QStringLiteral("retry"))->click();
    QCOMPARE(retry.size(), 1);
    // Choose database... asks for a file (an existing one, or a new name) and restarts on it.
    QSignalSpy chosen(&w, &ui::MainWindow::databaseChosen);
    const QString path = m_dir.filePath("chosen.sqlite");
    QTimer::singleShot(0, [path] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        QVERIFY(dialog);
        dialog->selectFile(path);
        static_cast<QDialog*>(dialog)->accept(); // QFileDialog::accept(), through the public base
    });
    w.findChild<QPushButton*>(QStringLiteral("chooseDatabase"))->click();
    QCOMPARE(chosen.size(), 1);
    QCOMPARE(chosen.first().first().toString(), path);
    // Recovered: the banner goes and the panels wait again.
    s.connection = engine::EngineStatus::Connection::Starting;
    s.message.clear();
    emit host.statusAvailable(s);
    QCOMPARE(w.engineErrorText(), QString());
    QCOMPARE(w.panels().first()->placeholderText(),
             QStringLiteral("Waiting for the indexer: no data yet."));
}

QTEST_MAIN(TestFailureState)
#include "tst_failurestate.moc"
