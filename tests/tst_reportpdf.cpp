// ReportPdfWriter as the app calls it: a CheckpointReport value (built here by hand, so
// long tables and every status can be set up exactly), with and without the app's four
// live chart images. Checked with poppler's pdfinfo/pdftotext: real text, pagination with
// the table header repeated, and no file at all when the path cannot be written.
#include "report/CheckpointReport.h"
#include "report/ReportError.h"
#include "report/ReportPdfWriter.h"
#include "widgets/LocalTime.h"

#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <ctime>

using namespace forkscope;
using report::CheckpointReport;

namespace {

QString hashOf(int i)
{
    return QStringLiteral("0x%1").arg(QString::number(i, 16), 64, QLatin1Char('a'));
}

CheckpointReport sampleReport(int reorgCount)
{
    CheckpointReport r;
    r.generatedAt = QStringLiteral("2025-01-02T03:04:05.678Z");
    r.generator = QStringLiteral("forkscope test");
    r.databasePath = QStringLiteral("/tmp/sample.sqlite");
    r.environment = {QStringLiteral("lab-sample"),
                     31337,
                     hashOf(0),
                     QStringLiteral("http://127.0.0.1:8545"),
                     QStringLiteral("2025-01-01T00:00:00.000Z"),
                     {}};
    const report::VerificationStatus statuses[] = {report::VerificationStatus::Canonical,
                                                   report::VerificationStatus::Reorged,
                                                   report::VerificationStatus::Unreachable};
    for (int i = 0; i < 3; ++i) {
        report::CheckpointEntry c;
        c.sourceId = QStringLiteral("source-%1").arg(i);
        c.blockNumber = 100 + i;
        c.blockHash = hashOf(100 + i);
        c.policyVersion = QStringLiteral("follow-head/confirmations=0");
        c.generation = 1;
        c.startBlock = 0;
        c.updatedAt = r.generatedAt;
        c.verification.status = statuses[i];
        c.verification.checkedAt = r.generatedAt;
        c.verification.method =
            QStringLiteral("eth_getBlockByNumber(0x%1) on http://127.0.0.1:8545")
                .arg(100 + i, 0, 16);
        if (statuses[i] == report::VerificationStatus::Reorged)
            c.verification.nodeHash = hashOf(999);
        if (statuses[i] == report::VerificationStatus::Unreachable)
            c.verification.error =
                QStringLiteral("connection error from http://127.0.0.1:8545: refused");
        r.checkpoints << c;
    }
    for (int i = 0; i < reorgCount; ++i) {
        report::ReorgEntry e;
        e.id = i + 1;
        e.detectedAt =
            QStringLiteral("2025-01-01T00:%1:00.000Z").arg(i % 60, 2, 10, QLatin1Char('0'));
        e.oldBlockNumber = 50 + i;
        e.forkBlockNumber = 48 + i;
        e.oldBlockHash = hashOf(5000 + i);
        e.forkBlockHash = hashOf(6000 + i);
        e.depth = 2 + i % 5;
        e.reason = i % 2 ? QStringLiteral("hash mismatch") : QStringLiteral("parent mismatch");
        e.rowsRemoved = 7;
        e.diffCounts = {{QStringLiteral("transfer_removed"), 3},
                        {QStringLiteral("balance_changed"), 2}};
        e.diffItemsTotal = 5;
        for (int d = 0; d < 3; ++d) {
            report::ReorgDiffItem item;
            item.kind = QStringLiteral("transfer_removed");
            item.blockNumber = e.oldBlockNumber;
            item.fromAddr = QStringLiteral("0x") + QString(40, QLatin1Char('1'));
            item.toAddr = QStringLiteral("0x") + QString(40, QLatin1Char('2'));
            item.value = QStringLiteral("1000");
            e.diffItems << item;
        }
        r.reorgs << e;
        r.series.reorgs << report::ReorgPoint{1735689600.0 + i * 60, e.depth, e.reason};
    }
    for (int b = 0; b <= 100; ++b)
        r.series.blocks << report::SeriesPoint{1735689600.0 + b * 2, double(b)};
    r.series.blocksTotal = 101;
    r.counts.blocks = 101;
    r.counts.reorgs = reorgCount;
    r.counts.backfill << report::BackfillStatusCount{
        QStringLiteral("failed"), 1, 100, 5, {QStringLiteral("HTTP 503 from the node")}};
    r.node.checked = true;
    r.node.url = QStringLiteral("http://127.0.0.1:8545");
    r.node.reachable = true;
    r.node.chainId = 31337;
    r.node.head = 120;
    r.node.genesisHash = hashOf(0);
    r.node.sameChain = true;
    r.invariants.state = report::InvariantState::Violated;
    r.invariants.summary =
        QStringLiteral("1 invariant violation(s): block 101 is not the node's block");
    return r;
}

QString tool(const QString& name, const QStringList& args)
{
    QProcess p;
    p.start(QStandardPaths::findExecutable(name), args);
    p.waitForFinished(30000);
    return QString::fromUtf8(p.readAllStandardOutput());
}

int pages(const QString& pdf)
{
    return QRegularExpression("Pages:\\s+(\\d+)").match(tool("pdfinfo", {pdf})).captured(1).toInt();
}

} // namespace

class TestReportPdf : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void chartsFromTheDatabaseSeries();
    void longTablesPaginateWithTheirHeader();
    void onlyNodeHealthComesFromTheLivePanels();
    void unwritablePathLeavesNoFile();
    void timesAreLocalAndNeverWrap_data();
    void timesAreLocalAndNeverWrap();
    void theWholePdfUsesTheAppsZone();

private:
    QTemporaryDir m_dir;
};

void TestReportPdf::initTestCase()
{
    // A zone that is not UTC, so "the app's zone" and "what was stored" differ.
    qputenv("TZ", "FST-1");
    tzset();
    QVERIFY2(!QStandardPaths::findExecutable("pdfinfo").isEmpty() &&
                 !QStandardPaths::findExecutable("pdftotext").isEmpty(),
             "pdfinfo/pdftotext not found: run packaging/bootstrap.sh (poppler-utils)");
}

void TestReportPdf::chartsFromTheDatabaseSeries()
{
    const QString path = m_dir.filePath("small.pdf");
    ui::ReportPdfWriter::write(sampleReport(2), path);
    QVERIFY(QFile::exists(path));
    QCOMPARE(pages(path), 4); // title, cursor + node, checkpoints + reorgs, outbox + backfill
    const QString text = tool("pdftotext", {"-layout", path, "-"});
    for (int i = 0; i < 3; ++i)
        QVERIFY2(text.contains(hashOf(100 + i)), qPrintable(text.left(4000)));
    for (const char* s :
         {"canonical", "reorged", "unreachable", "Invariants VIOLATED", "Environment lab-sample",
          "Per-node history is not stored", "HTTP 503 from the node", "Reorg history"})
        QVERIFY2(text.contains(QLatin1String(s)), s);
    QVERIFY(text.contains(hashOf(999))); // the node's hash of the reorged checkpoint
}

void TestReportPdf::longTablesPaginateWithTheirHeader()
{
    const QString path = m_dir.filePath("long.pdf");
    ui::ReportPdfWriter::write(sampleReport(150), path);
    const int n = pages(path);
    QVERIFY2(n >= 8, qPrintable(QString::number(n)));
    const QString text = tool("pdftotext", {path, "-"});
    QVERIFY(text.count("What the rollback undid") >= 2); // the header again on the next page
    QVERIFY(text.contains("page " + QString::number(n)));
    QVERIFY(text.contains("Reorg #150"));
}

void TestReportPdf::onlyNodeHealthComesFromTheLivePanels()
{
    QList<QImage> live;
    for (const QColor& c :
         {QColor(Qt::red), QColor(Qt::green), QColor(Qt::blue), QColor(Qt::yellow)}) {
        QImage img(800, 300, QImage::Format_RGB32);
        img.fill(c);
        live << img;
    }
    const QString path = m_dir.filePath("live.pdf");
    ui::ReportPdfWriter::write(sampleReport(2), path, live);
    const QString text = tool("pdftotext", {path, "-"});
    // Only node health comes from the live panel; the rest is the database's whole history.
    QVERIFY(!text.contains("(live panel)"));
    QVERIFY(text.contains("under the app's live node panel"));
    QVERIFY(tool("pdfimages", {"-list", path}).count("\n") >= 4 + 2); // 4 images + 2 header lines
}

void TestReportPdf::unwritablePathLeavesNoFile()
{
    const QString path = m_dir.filePath("no-such-dir/r.pdf");
    QVERIFY_THROWS_EXCEPTION(report::ReportError,
                             ui::ReportPdfWriter::write(sampleReport(1), path));
    QVERIFY(!QFile::exists(path));
    QVERIFY(!QDir(m_dir.filePath("no-such-dir")).exists());
}

void TestReportPdf::timesAreLocalAndNeverWrap_data()
{
    QTest::addColumn<QString>("stored");
    QTest::addColumn<int>("offsetSecs");
    QTest::addColumn<QString>("shown");
    // clang-format off
    QTest::newRow("UTC") << "2025-01-02T03:04:05.678Z" << 0 << "2025-01-02\u00a003:04:05";
    QTest::newRow("UTC+1") << "2025-01-02T03:04:05.678Z" << 3600 << "2025-01-02\u00a004:04:05";
    QTest::newRow("UTC-5, the day before") << "2025-01-02T03:04:05Z" << -5 * 3600
                                            << "2025-01-01\u00a022:04:05";
    QTest::newRow("not a time stays") << "–" << 3600 << "–";
    QTest::newRow("empty stays") << "" << 3600 << "";
    // clang-format on
}

void TestReportPdf::timesAreLocalAndNeverWrap()
{
    QFETCH(QString, stored);
    QFETCH(int, offsetSecs);
    QFETCH(QString, shown);
    QCOMPARE(ui::LocalTime::format(stored, QTimeZone(offsetSecs)), shown);
    QCOMPARE(
        ui::LocalTime::zoneName(QTimeZone(offsetSecs)).right(6),
        QTimeZone(offsetSecs).displayName(QTimeZone::StandardTime, QTimeZone::OffsetName).right(6));
}

void TestReportPdf::theWholePdfUsesTheAppsZone()
{
    // The process's zone is the app's: the PDF's times are in it, whole on their line, and
    // the title page says which zone that is.
    const QString path = m_dir.filePath("zone.pdf");
    ui::ReportPdfWriter::write(sampleReport(3), path);
    const QString text = tool("pdftotext", {"-layout", path, "-"});
    const QString local = ui::LocalTime::format(QStringLiteral("2025-01-02T03:04:05.678Z"))
                              .replace(QChar(0xa0), QLatin1Char(' '));
    QVERIFY2(text.contains(local), qPrintable(local + "\n" + text.left(3000)));
    QCOMPARE(ui::LocalTime::zoneName(), QStringLiteral("local time, UTC+01:00")); // TZ above
    QVERIFY(text.contains(ui::LocalTime::zoneName()));
    // Reorg #1 was detected at 00:01:00 UTC: its local time, not the stored UTC text.
    const QString detected = ui::LocalTime::format(QStringLiteral("2025-01-01T00:01:00.000Z"))
                                 .replace(QChar(0xa0), QLatin1Char(' '));
    QVERIFY2(text.contains(detected), qPrintable(detected));
    QVERIFY(!text.contains("2025-01-01T00:01:00"));
    // Never a date on one line and its time on the next.
    static const QRegularExpression split(R"(\d{4}-\d\d-\d\d\s*\n)");
    QVERIFY2(!text.contains(split), qPrintable(text.left(3000)));
}

QTEST_MAIN(TestReportPdf)
#include "tst_reportpdf.moc"
