// The desktop lab's verbs, as a user drives them (menu actions and their dialogs) against
// a real managed anvil: each leaves the invariants holding and the verdict green.
#include "EnvironmentWindow.h"
#include "MainWindow.h"
#include "TableBrowser.h"
#include "engine/EngineHost.h"
#include "lab/FaultProxyDialog.h"
#include "lab/InjectReorgDialog.h"
#include "models/PagedTableModel.h"
#include "panels/PlotPanel.h"
#include "store/Database.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QInputDialog>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace forkscope;
using V = engine::InvariantVerdict::State;

namespace {
// Answers the next modal dialog the way a user would: `fill` sets its fields, then OK.
template <typename Dialog, typename Fill> void answerNextDialog(Fill fill)
{
    QTimer::singleShot(0, [fill] {
        QTRY_VERIFY(QApplication::activeModalWidget() != nullptr);
        auto* d = qobject_cast<Dialog*>(QApplication::activeModalWidget());
        QVERIFY2(d, "the expected dialog did not open");
        fill(d);
        d->accept();
    });
}

struct Lab
{
    QTemporaryDir dir;
    ui::MainWindow w;
    engine::EngineHost host;
    QSignalSpy statuses{&host, &engine::EngineHost::statusAvailable};
    QSignalSpy logs{&host, &engine::EngineHost::logMessage};
    ~Lab()
    {
        if (QTest::currentTestFailed())
            for (const auto& l : logs)
                qInfo("engine log: [%s] %s", qPrintable(l.at(0).toString()),
                      qPrintable(l.at(1).toString()));
    }
    engine::EngineStatus last() const
    {
        return statuses.last().at(0).value<engine::EngineStatus>();
    }
    bool logged(const QString& text) const
    {
        for (const auto& l : logs)
            if (l.at(1).toString().contains(text))
                return true;
        return false;
    }
    void start(int labNodes = 0)
    {
        w.attachEngine(&host);
        engine::EngineConfig config;
        config.dbPath = dir.filePath("lab.sqlite");
        config.demoTraffic = false; // the test decides when blocks come
        config.labNodes = labNodes;
        w.show();
        host.start(config);
    }
};
} // namespace

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
    void resetArchivesAndStartsANewEnvironment();
    void exportWritesWhatTheDatabaseHolds();
};

void TestLab::injectReorgKeepsTheInvariants_data()
{
    QTest::addColumn<int>("mode");
    QTest::newRow("keep the transfers") << 0;
    QTest::newRow("drop the transfers") << 1;
    QTest::newRow("move the transfers") << 2;
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
    QVERIFY2(lab.w.verdictText().contains("invariants hold"), qPrintable(lab.w.verdictText()));
    QVERIFY(lab.last().verdict.action.contains("inject reorg depth 5"));
    lab.host.shutdown();
}

void TestLab::crashPointsRecover_data()
{
    QTest::addColumn<QString>("point");
    QTest::newRow("before commit") << "before-commit";
    QTest::newRow("after commit") << "after-commit";
    QTest::newRow("mid rollback") << "mid-rollback";
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
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("rolled back 2 block(s); head is now"), 15000);
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
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.nodeTable()->rowCount(), 2, 15000);
    // Node 2 offline: the node table says so, node 1 (indexed) carries on.
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        d->setNode(1);
        d->offlineBox()->setChecked(true);
    });
    lab.w.labAction("proxy")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.nodeTable()->item(1, ui::MainWindow::NodeStateCol)->text(),
                              QStringLiteral("offline"), 15000);
    QCOMPARE(lab.w.nodeTable()->item(0, ui::MainWindow::NodeStateCol)->text(),
             QStringLiteral("caught up"));
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().proxyKnobs.value(1).value("offline").toBool(), 10000);
    // Node 1 lags 3 blocks: the health table shows it lagging behind node 2's head... node
    // 2 is offline, so bring it back first; then the indexed node serves an older head.
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        d->setNode(1);
        d->offlineBox()->setChecked(false);
    });
    lab.w.labAction("proxy")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.nodeTable()->item(1, ui::MainWindow::NodeStateCol)->text(),
                              QStringLiteral("caught up"), 15000);
    answerNextDialog<ui::FaultProxyDialog>([](ui::FaultProxyDialog* d) {
        d->setNode(0);
        d->latencyBox()->setValue(50);
        d->errorRateBox()->setValue(0.2);
    });
    lab.w.labAction("proxy")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().proxyKnobs.value(0).value("latencyMs").toInt() == 50,
                             10000);
    // Errors on the indexed node are retried, never mistaken for reorgs: still green.
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().transfersCommitted >= 30, 60000);
    lab.w.labAction("demo")->trigger();
    lab.w.labAction("check")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 60000);
    QCOMPARE(lab.last().reorgs, 0);
    lab.host.shutdown();
}

namespace {
// Every row of every table of one environment, sorted: "kept, never changed" is this
// string being identical before and after.
QString environmentDump(const QString& dbPath, const QString& env)
{
    auto db = store::Database::open(dbPath);
    QString out;
    for (const QString& table :
         {"environments", "indexer_checkpoints", "blocks", "logs", "transfer_events",
          "token_balances", "outbox", "reorg_events", "reorg_diff_items", "backfill_ranges"}) {
        QSqlQuery q =
            db->run(QString("SELECT * FROM %1 WHERE environment_id = ?").arg(table), {env});
        QStringList rows;
        while (q.next()) {
            QStringList cells;
            for (int i = 0; i < q.record().count(); ++i)
                if (!(table == "environments" && q.record().fieldName(i) == "archived_at"))
                    cells << q.value(i).toString();
            rows << cells.join('|');
        }
        rows.sort();
        out += table + ":" + QString::number(rows.size()) + "\n" + rows.join('\n') + "\n";
    }
    return out;
}

void settle(Lab& lab, int minHead)
{
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().headBlock.value_or(0) >= quint64(minHead), 30000);
    lab.w.labAction("demo")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last().demoTraffic, 10000);
    QTest::qWait(1200); // the last demo tick may still be mining
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().checkpoint && lab.last().checkpoint == lab.last().headBlock,
                             30000);
}
} // namespace

void TestLab::resetArchivesAndStartsANewEnvironment()
{
    Lab lab;
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("reset")->isEnabled(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.checkpointText().startsWith("checkpoint "), 30000);
    settle(lab, 8);
    const QString oldEnv = lab.last().environmentId;
    lab.host.setIndexingPaused(true); // hold still while the "before" picture is taken
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().indexingPaused, 10000);
    const QString before = environmentDump(lab.dir.filePath("lab.sqlite"), oldEnv);
    QVERIFY(before.contains("transfer_events:") && !before.contains("transfer_events:0\n"));
    lab.host.setIndexingPaused(false);

    // The confirmation dialog says what will happen; the user clicks Reset.
    QString dialogText;
    QTimer::singleShot(0, [&dialogText] {
        QTRY_VERIFY(qobject_cast<QMessageBox*>(QApplication::activeModalWidget()));
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        dialogText = box->text() + "\n" + box->informativeText();
        for (QAbstractButton* b : box->buttons())
            if (b->text() == "Reset")
                b->click();
    });
    lab.w.labAction("reset")->trigger();
    QVERIFY2(dialogText.contains("archive environment " + oldEnv) &&
                 dialogText.contains("Nothing in the database is deleted"),
             qPrintable(dialogText));
    QTRY_VERIFY_WITH_TIMEOUT(
        !lab.last().environmentId.isEmpty() && lab.last().environmentId != oldEnv, 30000);
    const QString newEnv = lab.last().environmentId;
    QCOMPARE(lab.w.environmentText(), "env " + newEnv);
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.verdictState(), V::Holds, 60000);
    QCOMPARE(lab.last().verdict.action, QStringLiteral("lab reset"));
    // The new environment indexes the fresh chain.
    settle(lab, 4);
    QVERIFY(lab.last().transfersCommitted > 0);

    // The old one: every row intact, archived, never mixed with the new one.
    QCOMPARE(environmentDump(lab.dir.filePath("lab.sqlite"), oldEnv), before);
    {
        auto db = store::Database::open(lab.dir.filePath("lab.sqlite"));
        QSqlQuery q =
            db->run("SELECT archived_at FROM environments WHERE environment_id = ?", {oldEnv});
        QVERIFY(q.next() && !q.value(0).toString().isEmpty());
        q = db->run("SELECT archived_at IS NULL FROM environments WHERE environment_id = ?",
                    {newEnv});
        QVERIFY(q.next() && q.value(0).toBool());
    }
    // Listed, and opened read-only side by side with the live window.
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.environmentTable()->rowCount(), 2, 10000);
    int oldRow = -1;
    for (int r = 0; r < 2; ++r)
        if (lab.w.environmentTable()->item(r, 0)->text() == oldEnv)
            oldRow = r;
    QVERIFY(oldRow >= 0);
    QVERIFY(lab.w.environmentTable()->item(oldRow, 3)->text().startsWith("archived"));
    lab.w.openEnvironment(oldEnv);
    QCOMPARE(lab.w.environmentWindows().size(), 1);
    ui::EnvironmentWindow* view = lab.w.environmentWindows().first();
    QVERIFY(view->windowTitle().contains("archived, read-only"));
    QTRY_VERIFY_WITH_TIMEOUT(view->summaryText().contains("Checkpoint"), 30000);
    // The archived checkpoint is not on the reset chain any more: the re-check says so.
    QVERIFY2(view->summaryText().contains("reorged") || view->summaryText().contains("missing"),
             qPrintable(view->summaryText()));
    QTRY_VERIFY_WITH_TIMEOUT(view->transfers()->model()->rowCount() > 0, 10000);
    QAbstractItemModelTester tester(view->transfers()->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    lab.host.shutdown();
}

void TestLab::exportWritesWhatTheDatabaseHolds()
{
    Lab lab;
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("reorg")->isEnabled(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.checkpointText().startsWith("checkpoint "), 30000);
    settle(lab, 9);
    lab.host.injectReorg(3, 1); // a reorg for the report's history
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().reorgs >= 1, 30000);
    settle(lab, 12);
    lab.host.setIndexingPaused(true);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().indexingPaused, 10000);
    const QString env = lab.last().environmentId;
    QString hash;
    qint64 number = 0, reorgs = 0;
    {
        auto db = store::Database::open(lab.dir.filePath("lab.sqlite"));
        QSqlQuery q = db->run(
            "SELECT block_number, block_hash FROM indexer_checkpoints WHERE environment_id = ?",
            {env});
        QVERIFY(q.next());
        number = q.value(0).toLongLong();
        hash = q.value(1).toString();
        q = db->run("SELECT count(*) FROM reorg_events WHERE environment_id = ?", {env});
        QVERIFY(q.next());
        reorgs = q.value(0).toLongLong();
    }
    QVERIFY(reorgs >= 1);
    QSignalSpy finished(&lab.w, &ui::MainWindow::exportFinished);
    for (const QString& name : {"report.json", "report.csv", "report.pdf"})
        lab.w.exportReport(lab.dir.filePath(name));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 60000);
    for (const auto& f : finished)
        QVERIFY2(f.at(1).toBool(), qPrintable(f.at(2).toString()));

    // JSON: the checkpoint and reorgs as stored, the hash re-verified against the node now.
    QFile json(lab.dir.filePath("report.json"));
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(json.readAll()).object();
    QCOMPARE(doc.value("schema_version").toInt(), 1);
    QCOMPARE(doc.value("environment").toObject().value("id").toString(), env);
    const QJsonObject cp = doc.value("checkpoints").toArray().first().toObject();
    QCOMPARE(cp.value("block_number").toInteger(), number);
    QCOMPARE(cp.value("block_hash").toString(), hash);
    QCOMPARE(cp.value("verification").toObject().value("status").toString(),
             QStringLiteral("canonical"));
    QCOMPARE(doc.value("reorgs").toArray().size(), reorgs);
    // CSV: one row per checkpoint and per reorg.
    QFile csv(lab.dir.filePath("report.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).split("\r\n", Qt::SkipEmptyParts);
    QVERIFY(lines.first().startsWith("record_type,"));
    int checkpointRows = 0, reorgRows = 0;
    for (const QString& l : lines.mid(1)) {
        checkpointRows += l.startsWith("checkpoint,");
        reorgRows += l.startsWith("reorg,");
        if (l.startsWith("checkpoint,"))
            QVERIFY(l.contains(hash) && l.contains(",canonical,"));
    }
    QCOMPARE(checkpointRows, 1);
    QCOMPARE(reorgRows, int(reorgs));
    // PDF: pages, and the checkpoint hash in its text.
    QProcess info;
    info.start("pdfinfo", {lab.dir.filePath("report.pdf")});
    QVERIFY(info.waitForFinished(30000));
    const QString infoText = QString::fromUtf8(info.readAllStandardOutput());
    const auto pages = QRegularExpression("Pages:\\s+(\\d+)").match(infoText);
    QVERIFY2(pages.hasMatch() && pages.captured(1).toInt() >= 2, qPrintable(infoText));
    QProcess text;
    text.start("pdftotext", {lab.dir.filePath("report.pdf"), "-"});
    QVERIFY(text.waitForFinished(30000));
    const QString pdfText =
        QString::fromUtf8(text.readAllStandardOutput()).remove(QRegularExpression("\\s"));
    QVERIFY2(pdfText.contains(hash), "the PDF does not contain the checkpoint hash");
    // A bad suffix is refused with a message, nothing written.
    lab.w.exportReport(lab.dir.filePath("report.txt"));
    QCOMPARE(finished.size(), 4);
    QVERIFY(!finished.last().at(1).toBool());
    QVERIFY(!QFile::exists(lab.dir.filePath("report.txt")));
    lab.host.shutdown();
}

QTEST_MAIN(TestLab)
#include "tst_lab.moc"
