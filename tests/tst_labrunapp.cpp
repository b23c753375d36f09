// Lab > Run lab scenario...: `forkscope lab run` started from the app's Lab menu, run by the
// engine on a worker of its own and followed live in the progress view, with our own
// `forkscope index` as the foreign indexer (on a SQLite file, so no PostgreSQL cluster is
// started) through the cheapest scenario; and a run cancelled mid-way, which must leave no
// process behind.
#include "engine/EngineHost.h"
#include "lab/LabRunDialog.h"
#include "lab/LabRunView.h"
#include "lab/LabToolBar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>
#include <unistd.h>

using namespace forkscope;

namespace {

// Our own indexer, as a foreign command: the lab's contracts split into --contract flags.
QString ownIndexer()
{
    return QStringLiteral("set -- $(echo \"$FORKSCOPE_CONTRACTS\" | tr , ' '); exec '%1' index "
                          "--rpc \"$FORKSCOPE_RPC\" --db \"$DATABASE_URL\" --env lab "
                          "--contract \"$1\" --contract \"$2\" --poll-ms 100")
        .arg(QStringLiteral(FORKSCOPE_BINARY));
}

// Its transfer_events view, as the audit reads another indexer's table.
const QString kOwnQuery = QStringLiteral(
    "SELECT block_number, log_index, tx_hash, contract, from_addr AS \"from\", to_addr AS "
    "\"to\", value FROM transfer_events");

// The processes whose environment holds FORKSCOPE_TEST_RUN_TAG=tag (this one's own
// environment is the one it started with, so only its children can match).
QStringList processesTagged(const QString& tag)
{
    const QByteArray needle = "FORKSCOPE_TEST_RUN_TAG=" + tag.toLatin1();
    QStringList out;
    for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        QFile f(QStringLiteral("/proc/%1/environ").arg(pid));
        if (pid.toInt() > 0 && pid.toInt() != getpid() && f.open(QIODevice::ReadOnly) &&
            f.readAll().split('\0').contains(needle))
            out << pid;
    }
    return out;
}

// Lab > Run lab scenario... on a Lab toolbar of `host`: the dialog it opens.
ui::LabRunDialog* openDialog(ui::LabToolBar& bar)
{
    QAction* run = bar.action(QStringLiteral("labrun"));
    if (!run || !run->isEnabled())
        return nullptr;
    run->trigger();
    return bar.window()->findChild<ui::LabRunDialog*>();
}

QStringList eventLines(const QSignalSpy& spy)
{
    QStringList out;
    for (const QList<QVariant>& args : spy)
        if (const auto p = args.at(0).value<lab::LabRunProgress>(); p.event)
            out << p.event->what;
    return out;
}

} // namespace

class TestLabRunApp : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void theDialogSaysWhatIsWrong_data();
    void theDialogSaysWhatIsWrong();
    void aRunFromTheLabMenu();
    void cancelStopsEverythingItStarted();

private:
    QString m_tag;
};

void TestLabRunApp::init()
{
    // Every process a run starts inherits it: what is left behind can be found.
    m_tag = QUuid::createUuid().toString(QUuid::WithoutBraces);
    qputenv("FORKSCOPE_TEST_RUN_TAG", m_tag.toLatin1());
}

void TestLabRunApp::cleanup()
{
    qunsetenv("FORKSCOPE_TEST_RUN_TAG");
}

void TestLabRunApp::theDialogSaysWhatIsWrong_data()
{
    QTest::addColumn<QString>("indexer");
    QTest::addColumn<QString>("seed");
    QTest::addColumn<int>("audit"); // the audit box's index: 0 own query, then the presets
    QTest::addColumn<QString>("queryOrTable");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no command") << " "
                                << "1" << 0 << kOwnQuery << "Indexer command: expected the command";
    QTest::newRow("seed not a number") << "true"
                                       << "x1" << 0 << kOwnQuery << "field \"Seed\": 'x' is not";
    QTest::newRow("seed out of range") << "true"
                                       << "4294967296" << 0 << kOwnQuery
                                       << "field \"Seed\": expected a number from 0 to 4294967295";
    QTest::newRow("no query") << "true"
                              << "1" << 0 << ""
                              << "Query: expected a SQL query";
    QTest::newRow("bad table") << "true"
                               << "1" << 1 << "a;b"
                               << "Table: `a;b` is not a table";
}

void TestLabRunApp::theDialogSaysWhatIsWrong()
{
    QFETCH(QString, indexer);
    QFETCH(QString, seed);
    QFETCH(int, audit);
    QFETCH(QString, queryOrTable);
    QFETCH(QString, expected);
    engine::EngineHost host; // not started: a lab run needs nothing of the engine's lab
    ui::LabToolBar bar(&host);
    QSignalSpy progress(&host, &engine::EngineApi::labRunProgress);
    ui::LabRunDialog* dialog = openDialog(bar);
    QVERIFY(dialog);
    dialog->indexerEdit()->setText(indexer);
    dialog->seedEdit()->setText(seed);
    dialog->auditBox()->setCurrentIndex(audit);
    if (audit == ui::LabRunDialog::kOwnQuery)
        dialog->queryEdit()->setPlainText(queryOrTable);
    else
        dialog->tableEdit()->setText(queryOrTable);
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();
    QVERIFY(dialog->isVisible()); // still open, to correct
    QVERIFY2(dialog->message().startsWith(expected), qPrintable(dialog->message()));
    QVERIFY(!dialog->message().contains('\n'));
    QVERIFY(!host.isLabRunRunning()); // nothing started
    QVERIFY(!bar.window()->findChild<ui::LabRunView*>());
    QVERIFY(!progress.wait(200));
}

void TestLabRunApp::aRunFromTheLabMenu()
{
    QTemporaryDir dir;
    engine::EngineHost host;
    ui::LabToolBar bar(&host);
    QSignalSpy progress(&host, &engine::EngineApi::labRunProgress);
    QSignalSpy finished(&host, &engine::EngineApi::labRunFinished);
    ui::LabRunDialog* dialog = openDialog(bar);
    QVERIFY(dialog);
    dialog->indexerEdit()->setText(ownIndexer());
    dialog->scenarioBox()->setCurrentText(QStringLiteral("kill-restart"));
    dialog->queryEdit()->setPlainText(kOwnQuery);
    dialog->databaseEdit()->setText(dir.filePath(QStringLiteral("own.sqlite")));
    dialog->timeoutEdit()->setText(QStringLiteral("60000"));
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();
    QVERIFY2(dialog->message().isEmpty(), qPrintable(dialog->message()));
    QVERIFY(host.isLabRunRunning());
    QPointer<ui::LabRunView> view = bar.window()->findChild<ui::LabRunView*>();
    QVERIFY(view && view->isVisible());
    const int steps = view->steps()->rowCount();
    QCOMPARE(steps, int(lab::planLabScenario(lab::LabScenario::KillRestart, 1).size()));

    // Live: the timeline grows while it runs, and a step's bar follows the indexer's
    // highest block while the run waits for it.
    QVERIFY2(finished.wait(180000), qPrintable(eventLines(progress).join('\n')));
    bool sawWaiting = false;
    for (const QList<QVariant>& args : progress) {
        const auto p = args.at(0).value<lab::LabRunProgress>();
        if (p.waiting && p.indexerBlock && p.step > 0) {
            sawWaiting = true;
            QCOMPARE(p.steps, steps);
            QVERIFY(p.targetBlock > 0);
        }
    }
    QVERIFY(sawWaiting);
    const QStringList lines = eventLines(progress);
    QVERIFY2(lines.filter("indexer started").size() >= 1, qPrintable(lines.join('\n')));
    QVERIFY2(lines.filter(QRegularExpression("^step \\d+: ")).size() == steps,
             qPrintable(lines.join('\n')));
    QVERIFY2(lines.contains("everything the lab started is stopped"), qPrintable(lines.join('\n')));

    // The verdict: our own indexer, killed with SIGKILL and started again, loses nothing.
    const auto result = finished.first().at(0).value<lab::LabRunResult>();
    QVERIFY2(result.passed(), qPrintable(lab::labRunText(result)));
    QVERIFY(!host.isLabRunRunning());
    QVERIFY2(view->verdictText().startsWith("verdict: PASS"), qPrintable(view->verdictText()));
    QCOMPARE(view->countsText(), QStringLiteral("Audits: 2 (2 clean). Findings: 0."));
    for (int step = 1; step <= steps; ++step) {
        QProgressBar* b = view->stepBar(step);
        QVERIFY(b->maximum() > 0 && b->value() == b->maximum());
    }
    QCOMPARE(view->steps()->item(steps - 1, ui::LabRunView::AuditColumn)->text(),
             QStringLiteral("clean"));
    QVERIFY(view->timelineText().contains("verdict: PASS"));
    QVERIFY(!view->cancelButton()->isEnabled());

    // Saved as the command line saves it.
    const QString json = dir.filePath("run.json"), junit = dir.filePath("run.xml"),
                  pdf = dir.filePath("run.pdf");
    QVERIFY2(view->saveJson(json), qPrintable(view->saveError()));
    QVERIFY2(view->saveJunit(junit), qPrintable(view->saveError()));
    QVERIFY2(view->savePdf(pdf), qPrintable(view->saveError()));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(o.value("scenario").toString(), QStringLiteral("kill-restart"));
    QCOMPARE(o.value("passed").toBool(), true);
    QCOMPARE(o.value("audits").toArray().size(), 2);
    QFile x(junit);
    QVERIFY(x.open(QIODevice::ReadOnly));
    QCOMPARE(x.readAll().count("<testcase"), 2);
    QFile p(pdf);
    QVERIFY(p.open(QIODevice::ReadOnly));
    QVERIFY(p.read(5) == "%PDF-");

    QCOMPARE(processesTagged(m_tag), QStringList());
}

void TestLabRunApp::cancelStopsEverythingItStarted()
{
    QTemporaryDir dir;
    engine::EngineHost host;
    ui::LabToolBar bar(&host);
    QSignalSpy progress(&host, &engine::EngineApi::labRunProgress);
    QSignalSpy finished(&host, &engine::EngineApi::labRunFinished);
    ui::LabRunDialog* dialog = openDialog(bar);
    QVERIFY(dialog);
    // An indexer that never stores anything: the run waits for it until cancelled.
    dialog->indexerEdit()->setText(QStringLiteral("exec sleep 600"));
    dialog->scenarioBox()->setCurrentText(QStringLiteral("reorg-storm"));
    dialog->queryEdit()->setPlainText(kOwnQuery);
    dialog->databaseEdit()->setText(dir.filePath(QStringLiteral("none.sqlite")));
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();
    QPointer<ui::LabRunView> view = bar.window()->findChild<ui::LabRunView*>();
    QVERIFY(view);
    const auto waiting = [&] {
        for (const QList<QVariant>& args : progress)
            if (args.at(0).value<lab::LabRunProgress>().waiting)
                return true;
        return false;
    };
    while (!waiting())
        QVERIFY2(progress.wait(30000), qPrintable(eventLines(progress).join('\n')));
    QVERIFY(!processesTagged(m_tag).isEmpty()); // anvil and the indexer run

    view->cancelButton()->click();
    QVERIFY(finished.wait(60000));
    const auto result = finished.first().at(0).value<lab::LabRunResult>();
    QCOMPARE(result.aborted, QStringLiteral("stopped by request"));
    QVERIFY(!result.passed());
    QVERIFY2(view->verdictText().contains("the run stopped: stopped by request"),
             qPrintable(view->verdictText()));
    QVERIFY(!host.isLabRunRunning());
    QCOMPARE(processesTagged(m_tag), QStringList());
    // And another run can start (and be cancelled before its lab is even up).
    lab::LabRunSpec again;
    again.indexerCommand = QStringLiteral("exec sleep 600");
    again.scenario = lab::LabScenario::ReorgStorm;
    again.query = kOwnQuery;
    again.database = dir.filePath(QStringLiteral("again.sqlite"));
    QVERIFY(host.startLabRun(again));
    QVERIFY(!host.startLabRun(again)); // one at a time
    host.cancelLabRun();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.last().at(0).value<lab::LabRunResult>().aborted,
             QStringLiteral("stopped by request"));
    QCOMPARE(processesTagged(m_tag), QStringList());
}

QTEST_MAIN(TestLabRunApp)
#include "tst_labrunapp.moc"
