// ReportPdfWriter as the app calls it: a CheckpointReport value (built here by hand, so
// long tables and every status can be set up exactly), with and without the node health the
// app polled. Checked with poppler's pdfinfo/pdftotext/pdfimages: a first page a reader
// takes in at a glance, real text, charts of the report's own data only, amounts in the
// tokens' units, pagination with the table header repeated, times never broken, and no
// file at all when the path cannot be written.
#include "ForkTreeSim.h"
#include "report/CheckpointReport.h"
#include "report/ReportCharts.h"
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
                     {},
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
            item.value = QStringLiteral("1500000000000000000");
            item.contract = QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3");
            item.txHash = hashOf(7000 + d);
            e.diffItems << item;
        }
        report::ReorgDiffItem balance;
        balance.kind = QStringLiteral("balance_changed");
        balance.blockNumber = e.oldBlockNumber;
        balance.contract = QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3");
        balance.holder = QStringLiteral("0x") + QString(40, QLatin1Char('3'));
        balance.beforeValue = QStringLiteral("12500000000000000000");
        balance.afterValue = QStringLiteral("11000000000000000000");
        e.diffItems << balance;
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
        QStringLiteral("1 invariant violation: block 101 is not the node's block");
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

QString pageText(const QString& pdf, int page)
{
    return tool("pdftotext",
                {"-layout", "-f", QString::number(page), "-l", QString::number(page), pdf, "-"});
}

int images(const QString& pdf)
{
    return int(tool("pdfimages", {"-list", pdf}).count("\n")) - 2; // two header lines
}

const QRegularExpression kWholeHash(QStringLiteral("0x[0-9a-f]{40,64}"));

} // namespace

class TestReportPdf : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void chartsFromTheDatabaseSeries();
    void firstPageIsReadInAMinute();
    void amountsInTheTokensUnits_data();
    void amountsInTheTokensUnits();
    void noChartOfNothing();
    void nodeHealthFromTheEnvironmentsOwnPolls();
    void longTablesPaginateWithTheirHeader();
    void unwritablePathLeavesNoFile();
    void timesAreLocalAndNeverWrap_data();
    void timesAreLocalAndNeverWrap();
    void theWholePdfUsesTheAppsZone();
    void forkTreeOfTheReportsRange();

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
    QVERIFY(pages(path) >= 2);
    const QString text = tool("pdftotext", {"-layout", path, "-"});
    // The checkpoint hashes whole, where a reader compares them with a node's.
    for (int i = 0; i < 3; ++i)
        QVERIFY2(text.contains(hashOf(100 + i)), qPrintable(text.left(4000)));
    for (const char* s : {"the node has the same block", "ANOTHER block", "did not answer",
                          "Invariants VIOLATED", "Environment lab-sample",
                          "keeps no per-node history", "HTTP 503 from the node", "Reorgs"})
        QVERIFY2(text.contains(QLatin1String(s)), s);
    QVERIFY(text.contains(hashOf(999))); // the node's hash of the reorged checkpoint
    // Charts of the report's own data: the cursor, the reorgs; no outbox rows, no chart.
    QCOMPARE(images(path), 2);
}

void TestReportPdf::firstPageIsReadInAMinute()
{
    // A team lead reads page one: the verdict, the data, the environment at a glance in
    // words. No wall of hex there: whole hashes are further on, where they are compared.
    const QString path = m_dir.filePath("summary.pdf");
    CheckpointReport r = sampleReport(3);
    r.appState = QStringLiteral("synced");
    ui::ReportPdfWriter::write(r, path);
    const QString first = pageText(path, 1);
    for (const char* s : {"Forkscope report", "Invariants VIOLATED", "At a glance", "The app said",
                          "synced", "Checkpoint", "the node has the same block", "Reorgs", "3 (",
                          "deepest", "Outbox", "Node at export", "answered"})
        QVERIFY2(first.contains(QLatin1String(s)),
                 qPrintable(QString::fromLatin1(s) + "\n" + first));
    QVERIFY2(!first.contains(kWholeHash), qPrintable(first));
    QVERIFY2(!first.contains("balance_changed") && !first.contains("transfer_removed"),
             qPrintable(first));
}

void TestReportPdf::amountsInTheTokensUnits_data()
{
    QTest::addColumn<bool>("known");
    QTest::addColumn<QStringList>("shown");
    QTest::newRow("decimals read")
        << true
        << QStringList{"1.5 FSD", "12.5 FSD → 11 FSD", "transfer removed", "balance changed"};
    QTest::newRow("no decimals") << false
                                 << QStringList{"1500000000000000000 base units",
                                                "Amounts are in the tokens' base units"};
}

void TestReportPdf::amountsInTheTokensUnits()
{
    QFETCH(bool, known);
    QFETCH(QStringList, shown);
    CheckpointReport r = sampleReport(1);
    if (known) {
        r.tokens.insert(QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3"),
                        chain::TokenInfo{18, QStringLiteral("FSD")});
        r.tokensReadFrom = QStringLiteral("http://127.0.0.1:8545");
    }
    const QString path = m_dir.filePath("amounts.pdf");
    ui::ReportPdfWriter::write(r, path);
    const QString text = tool("pdftotext", {"-layout", path, "-"});
    for (const QString& s : shown)
        QVERIFY2(text.contains(s), qPrintable(s + "\n" + text));
    // Addresses and transaction hashes of the diff are short; the kinds are words.
    QVERIFY2(text.contains(QStringLiteral("0x1111\u20261111 → 0x2222\u20262222")),
             qPrintable(text));
    QVERIFY(!text.contains(QStringLiteral("0x") + QString(40, QLatin1Char('1'))));
    QVERIFY(!text.contains("balance_changed"));
}

void TestReportPdf::noChartOfNothing()
{
    // No reorgs and no outbox rows: said in words, never an empty plot whose time axis
    // starts in 1970 ("01-01 00:00:00").
    const CheckpointReport r = sampleReport(0);
    const QList<QImage> charts = ui::ReportCharts::render(r);
    QVERIFY(!charts.value(ui::ReportCharts::Cursor).isNull());
    QVERIFY(charts.value(ui::ReportCharts::Reorgs).isNull());
    QVERIFY(charts.value(ui::ReportCharts::NodeHealth).isNull());
    const QString path = m_dir.filePath("empty.pdf");
    ui::ReportPdfWriter::write(r, path);
    QCOMPARE(images(path), 1); // the cursor only
    const QString text = tool("pdftotext", {path, "-"});
    QVERIFY(text.contains("No reorg was recorded"));
    QVERIFY(text.contains("No rollback, so no branch to draw."));
}

void TestReportPdf::nodeHealthFromTheEnvironmentsOwnPolls()
{
    // A live export carries node health as the app polled it for this environment: drawn
    // from those samples (not a grab of the live panel), with each node's state at export.
    CheckpointReport r = sampleReport(1);
    const qint64 t0 = 1735689600000;
    CheckpointReport::NodeTrack one{QStringLiteral("http://127.0.0.1:1"), {}};
    CheckpointReport::NodeTrack two{QStringLiteral("http://127.0.0.1:2"), {}};
    for (int i = 0; i < 20; ++i) {
        // Node 1 dropped logs for a while (its count cleared since, as a repair does).
        one.samples << health::HealthSample{t0 + i * 1000, std::uint64_t(100 + i),
                                            i >= 5 && i <= 7 ? health::NodeState::DroppingLogs
                                                             : health::NodeState::CaughtUp};
        two.samples << health::HealthSample{t0 + i * 1000, std::uint64_t(100 + std::min(i, 10)),
                                            i > 10 ? health::NodeState::Forked
                                                   : health::NodeState::CaughtUp};
    }
    r.nodeHistory = {one, two};
    health::NodeHealth n1;
    n1.url = one.url;
    n1.state = health::NodeState::CaughtUp;
    n1.head = 119;
    health::NodeHealth n2;
    n2.url = two.url;
    n2.state = health::NodeState::Forked;
    n2.head = 110;
    r.nodesAtExport = {n1, n2};
    QVERIFY(!ui::ReportCharts::render(r).value(ui::ReportCharts::NodeHealth).isNull());
    const QString path = m_dir.filePath("nodes.pdf");
    ui::ReportPdfWriter::write(r, path);
    const QString text = tool("pdftotext", {"-layout", path, "-"});
    QVERIFY2(text.contains("as the app polled it since this environment was created"),
             qPrintable(text));
    QVERIFY(text.contains("node 1 caught up, node 2 forked")); // page one
    QVERIFY(!text.contains("keeps no per-node history"));
    const QString until =
        QDateTime::fromMSecsSinceEpoch(t0 + 7000).toString(QStringLiteral("HH:mm:ss"));
    // The cell wraps (its neighbour's dash may come between its lines): read in reading
    // order, lines joined.
    const QString cells = tool("pdftotext", {path, "-"}).simplified();
    const QRegularExpression seen("none caught now; seen dropping (– )?logs until " + until);
    QVERIFY2(cells.contains(seen), qPrintable(cells.mid(cells.indexOf("Dropped logs"), 400)));
    QCOMPARE(cells.count("none caught"), 2); // node 2's plain "none caught" too
    QCOMPARE(images(path), 3);               // cursor, node health, reorgs
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
    // Never a date on one line and its time on the next, nor a time cut anywhere else.
    static const QRegularExpression split(
        R"(\d{4}-\d\d-\d\d(?! \d\d:\d\d:\d\d)|(\d{4}-|\d\d:)\s*\n)");
    QVERIFY2(!text.contains(split), qPrintable(text.left(3000)));
}

// The tree of the report's range, drawn as the Fork tree tab draws it: vector text, so the
// picture's words are in the PDF's text.
void TestReportPdf::forkTreeOfTheReportsRange()
{
    lab::ForkTreeSim sim;
    QString error;
    QVERIFY2(sim.run(QStringLiteral("commit 300; rollback 250 hash; commit 40; rollback 270 "
                                    "parent; commit 30; poll steady-node 290; own stray-node 280"),
                     &error),
             qPrintable(error));
    CheckpointReport r = sampleReport(2);
    r.forkTree = forktree::laidOut(sim.window());
    const QString path = m_dir.filePath("forktree.pdf");
    const int withoutTree = [&] {
        const QString plain = m_dir.filePath("no-forktree.pdf");
        ui::ReportPdfWriter::write(sampleReport(2), plain);
        return images(plain);
    }();
    ui::ReportPdfWriter::write(r, path);
    // The heading, its words and the picture (its legend) on one page.
    QString page;
    for (int i = 1; i <= pages(path) && page.isEmpty(); ++i)
        if (const QString t = pageText(path, i).simplified(); t.contains("Fork tree"))
            page = t;
    for (const QString& s :
         {QStringLiteral("2 branches kept"), QStringLiteral("hash mismatch parent mismatch"),
          QStringLiteral("stray-node (1 head(s) of its own)"),
          QStringLiteral("steady-node (behind, at 290)")})
        QVERIFY2(page.contains(s), qPrintable(s + "\n" + page));
    QCOMPARE(images(path), withoutTree); // drawn as vectors, not as a bitmap

    r.forkTree = forktree::laidOut({}); // past the retention: no branch
    ui::ReportPdfWriter::write(r, path);
    QVERIFY(tool("pdftotext", {path, "-"}).simplified().contains("No branch is kept"));
}

QTEST_MAIN(TestReportPdf)
#include "tst_reportpdf.moc"
