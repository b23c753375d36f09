// The lab's environment-level verbs from the window, against a real managed anvil:
// "Reset lab environment" (archive, new environment, archived one opened read-only) and
// "Export checkpoint report" (JSON, CSV, PDF matching the database).
#include "EngineToolBar.h"
#include "EnvironmentWindow.h"
#include "GuiLab.h"
#include "TableBrowser.h"
#include "models/EnvironmentListModel.h"
#include "models/PagedTableModel.h"
#include "report/ReportExporter.h"

#include <QAbstractItemModelTester>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>

using namespace forkscope;
using test::environmentDump;
using test::Lab;
using test::settle;
using V = engine::InvariantVerdict::State;

class TestLabEnvironments : public QObject
{
    Q_OBJECT
private slots:
    void resetArchivesAndStartsANewEnvironment();
    void exportWritesWhatTheDatabaseHolds();
};

void TestLabEnvironments::resetArchivesAndStartsANewEnvironment()
{
    Lab lab;
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("reset")->isEnabled(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.checkpointText().startsWith("checkpoint "), 30000);
    settle(lab, 8);
    const QString oldEnv = lab.last().environmentId;
    // Hold still while the "before" picture is taken, and through the reset: demo traffic
    // keeps mining, and anything indexed after the picture would be a legitimate change.
    // The reset itself resumes indexing (its dialog promises the fresh chain is indexed).
    lab.w.engineToolBar()->pauseAction()->trigger(); // Pause indexing
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().indexingPaused, 10000);
    const QString before = environmentDump(lab.dir.filePath("lab.sqlite"), oldEnv);
    QVERIFY(before.contains("transfer_events:") && !before.contains("transfer_events:0 "));

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
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last().indexingPaused, 10000);
    // The toolbar agrees.
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.engineToolBar()->pauseAction()->text(),
                              QStringLiteral("Pause indexing"), 10000);
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
    QTRY_COMPARE_WITH_TIMEOUT(lab.w.environmentModel()->rowCount(), 2, 10000);
    int oldRow = -1;
    for (int r = 0; r < 2; ++r)
        if (lab.w.environmentModel()->text(r, ui::EnvironmentListModel::Id) == oldEnv)
            oldRow = r;
    QVERIFY(oldRow >= 0);
    QVERIFY(lab.w.environmentModel()
                ->text(oldRow, ui::EnvironmentListModel::State)
                .startsWith("archived"));
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

void TestLabEnvironments::exportWritesWhatTheDatabaseHolds()
{
    Lab lab;
    lab.start();
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("reorg")->isEnabled(), 30000);
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.checkpointText().startsWith("checkpoint "), 30000);
    settle(lab, 9);
    lab.host.injectReorg(3, 1); // a reorg for the report's history
    QTRY_VERIFY_WITH_TIMEOUT(lab.last().reorgs >= 1, 30000);
    settle(lab, 12);
    lab.w.engineToolBar()->pauseAction()->trigger(); // Pause indexing
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
    QSignalSpy finished(lab.w.reportExporter(), &ui::ReportExporter::exportFinished);
    for (const char* name : {"report.json", "report.csv", "report.pdf"})
        lab.w.reportExporter()->exportReport(lab.dir.filePath(name));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, 60000);
    for (const auto& f : finished)
        QVERIFY2(f.at(1).toBool(), qPrintable(f.at(2).toString()));
    // The window says where the last one went (with Open and Show in folder beside it).
    QVERIFY2(lab.w.exportNoticeText() ==
                 "Exported " + QFileInfo(finished.last().at(0).toString()).fileName(),
             qPrintable(lab.w.exportNoticeText()));

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
    lab.w.reportExporter()->exportReport(lab.dir.filePath("report.txt"));
    QCOMPARE(finished.size(), 4);
    QVERIFY(!finished.last().at(1).toBool());
    QVERIFY(!QFile::exists(lab.dir.filePath("report.txt")));
    lab.host.shutdown();
}

QTEST_MAIN(TestLabEnvironments)
#include "tst_labenvironments.moc"
