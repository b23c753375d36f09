// `forkscope report` as a user runs it, on a database with two real environments: env-a
// indexed on anvil with a real reorg and then archived by `forkscope lab reset`, env-b
// indexed on the reset chain. Every figure in the JSON and CSV is compared with direct SQL,
// every verification status with the node, the PDF with pdfinfo/pdftotext; bad inputs
// leave one line and no file; and the database is byte-for-byte the same afterwards. Each
// runs on both stores, the backend a data row: the same chain and commands into a SQLite
// file and into a database on the suite's throwaway PostgreSQL cluster, read back through
// the store's contract surface.
#include "CsvRows.h"
#include "IndexerLab.h"
#include "StoreRows.h"
#include "report/CheckpointReport.h"
#include "report/ReportSections.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/ReadOnlyStore.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"
#include "store/pg/PgContractReader.h"

#include <QCryptographicHash>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QtTest>
#include <unistd.h>

using namespace forkscope;
using test::IndexerLab;
using test::parseCsv;
using test::ProcessRun;

namespace {

QString runTool(const QString& tool, const QStringList& args)
{
    QProcess p;
    p.start(tool, args);
    p.waitForFinished(30000);
    return QString::fromUtf8(p.readAllStandardOutput());
}

} // namespace

class TestReport : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void jsonLiveEnvironmentMatchesTheDatabase_data() { test::StoreRows::backendRows(); }
    void jsonLiveEnvironmentMatchesTheDatabase();
    void jsonArchivedEnvironmentIsReorgedOnTheResetChain_data() { test::StoreRows::backendRows(); }
    void jsonArchivedEnvironmentIsReorgedOnTheResetChain();
    void csvHasOneRowPerCheckpointAndReorg_data() { test::StoreRows::backendRows(); }
    void csvHasOneRowPerCheckpointAndReorg();
    void pdfWithoutADisplay_data();
    void pdfWithoutADisplay();
    void badInputs_data();
    void badInputs();
    void noVerifyAsksNoNode_data() { test::StoreRows::backendRows(); }
    void noVerifyAsksNoNode();
    void seriesStayWithinTheBound_data();
    void seriesStayWithinTheBound();
    void databaseUnchanged_data() { test::StoreRows::backendRows(); }
    void databaseUnchanged();
    void reportFromAReadOnlyPlace_data();
    void reportFromAReadOnlyPlace();
    void unreachableNodeStillWritesTheReport_data() { test::StoreRows::backendRows(); }
    void unreachableNodeStillWritesTheReport(); // stops anvil: keep last

private:
    // The row's lab (a chain and the store it was indexed into) is the one the helpers use.
    void use(const QString& backend) { m_lab = m_labs.value(backend).get(); }
    void buildLab(const QString& backend);
    void badInputRows(const QString& backend);
    ProcessRun report(const QStringList& extra, const QString& out,
                      const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment());
    QJsonObject jsonReport(const QStringList& extra);
    QVariantList row(const QString& sql, const QVariantList& args = {});
    qint64 scalar(const QString& sql, const QString& env);

    const QString& readOnlySource();

    test::StoreRows m_stores;
    QMap<QString, std::shared_ptr<IndexerLab>> m_labs; // by backend
    QMap<QString, QString> m_dumpsBefore;              // by backend
    IndexerLab* m_lab = nullptr;                       // the row's
    QString m_readOnlySource;
};

ProcessRun TestReport::report(const QStringList& extra, const QString& out,
                              const QProcessEnvironment& env)
{
    return test::runForkscope(QStringList{"report", "--db", m_lab->db(), "--out", out} + extra, env,
                              60000);
}

QJsonObject TestReport::jsonReport(const QStringList& extra)
{
    const QString out =
        m_lab->tempPath(QStringLiteral("r-%1.json").arg(QDateTime::currentMSecsSinceEpoch()));
    const ProcessRun run = report(QStringList{"--format", "json"} + extra, out);
    if (run.exitCode != 0)
        qWarning().noquote() << run.describe();
    QFile f(out);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QJsonParseError pe{};
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
    if (pe.error != QJsonParseError::NoError)
        qWarning() << "not JSON:" << pe.errorString();
    return doc.object();
}

QVariantList TestReport::row(const QString& sql, const QVariantList& args)
{
    const auto store = store::ReadOnlyStore::open(m_lab->db());
    const auto q = store->reader().query(sql, args);
    QVariantList out;
    if (q->next())
        for (int i = 0; i < q->columns(); ++i)
            out << q->value(i);
    return out;
}

qint64 TestReport::scalar(const QString& sql, const QString& env)
{
    return row(sql, {env}).value(0).toLongLong();
}

namespace {
const QString kSilentContract = QStringLiteral("0x00000000000000000000000000000000000dead1");
} // namespace

void TestReport::initTestCase()
{
    m_stores.startCluster();
    for (const QString& backend : test::StoreRows::backends())
        buildLab(backend);
    use(QStringLiteral("sqlite"));
}

void TestReport::buildLab(const QString& backend)
{
    const auto built = std::make_shared<IndexerLab>(m_stores.freshDatabase(backend));
    m_labs.insert(backend, built);
    IndexerLab& lab = *built;
    lab.deployToken("AAA");
    lab.sprayAll(6, 4, 8);
    VERIFY_EXIT_OK(lab.runIndex("env-a", {"--exit-when-synced"}));
    // A real reorg of the last three blocks (their transfers vanish), seen by a second run.
    lab.reorg(3);
    VERIFY_EXIT_OK(lab.runIndex("env-a", {"--exit-when-synced"}));
    QVERIFY(lab.count("SELECT count(*) FROM reorg_events WHERE environment_id = 'env-a'") >= 1);
    QVERIFY(lab.count("SELECT count(*) FROM reorg_diff_items WHERE environment_id = 'env-a'") > 0);

    VERIFY_EXIT_OK(test::runForkscope({"lab", "reset", "--db", lab.db(), "--rpc",
                                       lab.devnet().url().toString(), "--env", "env-b"}));
    // The reset chain has no contracts: deploy again, then index the new environment. Mine
    // past env-a's checkpoint so that height exists on the new chain with another hash.
    lab.tokens().clear();
    lab.deployToken("BBB");
    lab.sprayAll(3, 3, 5);
    // env-b also indexes a contract that never logged: the report must check it too.
    VERIFY_EXIT_OK(lab.runIndex("env-b", {"--exit-when-synced", "--contract", kSilentContract}));
    lab.mine(30);
    m_dumpsBefore.insert(backend, lab.dump());
}

void TestReport::jsonLiveEnvironmentMatchesTheDatabase()
{
    QFETCH(QString, backend);
    use(backend);
    const QJsonObject r = jsonReport({}); // no --env: the newest live environment
    QCOMPARE(r.value("schema_version").toInt(), 1);
    const QJsonObject env = r.value("environment").toObject();
    QCOMPARE(env.value("id").toString(), QString("env-b"));
    QCOMPARE(env.value("archived").toBool(), false);
    QVERIFY(env.value("archived_at").isNull());
    const QVariantList e =
        row("SELECT chain_id, genesis_hash, rpc_url, created_at FROM environments "
            "WHERE environment_id = 'env-b'");
    QCOMPARE(env.value("chain_id").toInteger(), e[0].toLongLong());
    QCOMPARE(env.value("genesis_hash").toString(), e[1].toString());
    QCOMPARE(env.value("rpc_url").toString(), e[2].toString());
    QCOMPARE(env.value("created_at").toString(), e[3].toString());

    const QJsonArray cps = r.value("checkpoints").toArray();
    QCOMPARE(cps.size(), 1);
    const QJsonObject cp = cps.first().toObject();
    const QVariantList c =
        row("SELECT source_id, block_number, block_hash, policy_version, generation, "
            "updated_at FROM indexer_checkpoints WHERE environment_id = 'env-b'");
    QCOMPARE(cp.value("source_id").toString(), c[0].toString());
    QCOMPARE(cp.value("block_number").toInteger(), c[1].toLongLong());
    QCOMPARE(cp.value("block_hash").toString(), c[2].toString());
    QCOMPARE(cp.value("policy_version").toString(), c[3].toString());
    QCOMPARE(cp.value("generation").toInt(), c[4].toInt());
    QCOMPARE(cp.value("updated_at").toString(), c[5].toString());
    const QJsonObject v = cp.value("verification").toObject();
    QCOMPARE(v.value("status").toString(), QString("canonical"));
    QCOMPARE(v.value("node_hash").toString(), c[2].toString());
    QVERIFY(v.value("method").toString().startsWith("eth_getBlockByNumber(0x"));
    QVERIFY(v.value("method").toString().contains(
        m_lab->devnet().url().toString(QUrl::StripTrailingSlash)));
    QVERIFY(!v.value("checked_at").toString().isEmpty());

    const QJsonObject counts = r.value("counts").toObject();
    const QString envB = "env-b";
    QCOMPARE(counts.value("blocks").toInteger(),
             scalar("SELECT count(*) FROM blocks WHERE environment_id = ?", envB));
    QCOMPARE(counts.value("logs").toInteger(),
             scalar("SELECT count(*) FROM logs WHERE environment_id = ?", envB));
    QCOMPARE(counts.value("transfers").toInteger(),
             scalar("SELECT count(*) FROM transfer_events WHERE environment_id = ?", envB));
    QCOMPARE(counts.value("balances").toInteger(),
             scalar("SELECT count(*) FROM token_balances WHERE environment_id = ?", envB));
    QCOMPARE(counts.value("holders").toInteger(),
             scalar("SELECT count(DISTINCT holder) FROM token_balances WHERE environment_id = ? "
                    "AND balance <> '0'",
                    envB));
    QCOMPARE(counts.value("outbox").toObject().value("pending").toInteger(),
             scalar("SELECT count(*) FROM outbox WHERE environment_id = ? AND delivered_at IS NULL "
                    "AND failed_at IS NULL",
                    envB));
    QCOMPARE(counts.value("reorgs").toInteger(), 0);
    QVERIFY(counts.value("transfers").toInteger() > 0);

    const QJsonObject node = r.value("node").toObject();
    QVERIFY(node.value("reachable").toBool());
    QVERIFY(node.value("same_chain").toBool());
    QCOMPARE(node.value("head").toInteger(), qint64(m_lab->eth().blockNumber()));
    const QJsonObject inv = r.value("invariants").toObject();
    QVERIFY2(inv.value("state").toString() == "hold", qPrintable(inv.value("summary").toString()));
    // Every contract the checkpoint covers, the one with no stored row included.
    const QStringList checked = inv.value("contracts_checked").toVariant().toStringList();
    QCOMPARE(checked.size(), 2);
    QVERIFY2(checked.contains(kSilentContract), qPrintable(checked.join(' ')));

    const QJsonObject series = r.value("series").toObject();
    const QJsonObject blocks = series.value("blocks").toObject();
    QCOMPARE(blocks.value("total").toInteger(), counts.value("blocks").toInteger());
    QVERIFY(blocks.value("points").toArray().size() <= 2000);
    const QJsonArray last = blocks.value("points").toArray().last().toArray();
    QCOMPARE(qint64(last.at(1).toDouble()), c[1].toLongLong());
    QCOMPARE(series.value("outbox_pending_by_block").toObject().value("points").toArray().size(),
             scalar("SELECT count(DISTINCT block_number) FROM outbox WHERE environment_id = ? AND "
                    "delivered_at IS NULL",
                    envB));
}

void TestReport::jsonArchivedEnvironmentIsReorgedOnTheResetChain()
{
    QFETCH(QString, backend);
    use(backend);
    const QJsonObject r = jsonReport({"--env", "env-a"});
    const QJsonObject env = r.value("environment").toObject();
    QCOMPARE(env.value("id").toString(), QString("env-a"));
    QVERIFY(env.value("archived").toBool());
    QCOMPARE(
        env.value("archived_at").toString(),
        row("SELECT archived_at FROM environments WHERE environment_id = 'env-a'")[0].toString());

    // The chain was reset: the node's block at the checkpoint's height is another block.
    const QJsonObject cp = r.value("checkpoints").toArray().first().toObject();
    const QVariantList c = row("SELECT block_number, block_hash FROM indexer_checkpoints WHERE "
                               "environment_id = 'env-a'");
    QCOMPARE(cp.value("block_number").toInteger(), c[0].toLongLong());
    QCOMPARE(cp.value("block_hash").toString(), c[1].toString());
    const QJsonObject v = cp.value("verification").toObject();
    QCOMPARE(v.value("status").toString(), QString("reorged"));
    const auto nodeBlock = m_lab->eth().blockByNumber(c[0].toULongLong());
    QVERIFY(nodeBlock);
    QCOMPARE(v.value("node_hash").toString(), nodeBlock->hash.toHex());
    QVERIFY(v.value("node_hash").toString() != c[1].toString());

    // Never green without checking: another chain is not checked against.
    QCOMPARE(r.value("node").toObject().value("same_chain").toBool(), false);
    const QJsonObject inv = r.value("invariants").toObject();
    QCOMPARE(inv.value("state").toString(), QString("not-checked"));
    QVERIFY2(inv.value("summary").toString().contains("lab was reset"),
             qPrintable(inv.value("summary").toString()));

    // Every reorg row, with its diff counts by kind, equals the tables.
    const QJsonArray reorgs = r.value("reorgs").toArray();
    QCOMPARE(reorgs.size(),
             scalar("SELECT count(*) FROM reorg_events WHERE environment_id = ?", "env-a"));
    const auto store = store::ReadOnlyStore::open(m_lab->db());
    store::ContractReader& db = store->reader();
    const auto q = db.query("SELECT id, detected_at, old_block_number, old_block_hash, "
                            "fork_block_number, fork_block_hash, depth, reason, rows_removed FROM "
                            "reorg_events WHERE environment_id = 'env-a' ORDER BY id",
                            {});
    for (const QJsonValue& value : reorgs) {
        QVERIFY(q->next());
        const QJsonObject e = value.toObject();
        QCOMPARE(e.value("id").toInteger(), q->value(0).toLongLong());
        QCOMPARE(e.value("detected_at").toString(), q->value(1).toString());
        QCOMPARE(e.value("old_block_number").toInteger(), q->value(2).toLongLong());
        QCOMPARE(e.value("old_block_hash").toString(), q->value(3).toString());
        QCOMPARE(e.value("fork_block_number").toInteger(), q->value(4).toLongLong());
        QCOMPARE(e.value("fork_block_hash").toString(), q->value(5).toString());
        QCOMPARE(e.value("depth").toInteger(), q->value(6).toLongLong());
        QCOMPARE(e.value("reason").toString(), q->value(7).toString());
        QCOMPARE(e.value("rows_removed").toInteger(), q->value(8).toLongLong());
        const auto kinds = db.query("SELECT kind, count(*) FROM reorg_diff_items WHERE reorg_id "
                                    "= ? AND environment_id = 'env-a' GROUP BY kind",
                                    {q->value(0)});
        qint64 total = 0;
        const QJsonObject counts = e.value("diff_counts").toObject();
        int kindsSeen = 0;
        while (kinds->next()) {
            ++kindsSeen;
            QCOMPARE(counts.value(kinds->value(0).toString()).toInteger(),
                     kinds->value(1).toLongLong());
            total += kinds->value(1).toLongLong();
        }
        QCOMPARE(counts.size(), kindsSeen);
        QCOMPARE(e.value("diff_items_total").toInteger(), total);
        QCOMPARE(e.value("diff_items").toArray().size(), std::min<qint64>(total, 200));
        QCOMPARE(e.value("diff_items_truncated").toBool(), total > 200);
        QVERIFY(counts.value("transfer_removed").toInteger() > 0);
    }
    QCOMPARE(r.value("series").toObject().value("reorgs").toArray().size(), reorgs.size());
}

void TestReport::csvHasOneRowPerCheckpointAndReorg()
{
    QFETCH(QString, backend);
    use(backend);
    const QString out = m_lab->tempPath("a.csv");
    VERIFY_EXIT_OK(report({"--format", "csv", "--env", "env-a"}, out));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    QVERIFY(bytes.endsWith("\r\n"));
    const QList<QStringList> rows = parseCsv(bytes);
    QVERIFY(rows.size() > 1);
    const QStringList header = rows.first();
    QCOMPARE(header.first(), QString("record_type"));
    const auto col = [&](const QString& name) { return header.indexOf(name); };
    for (const char* name :
         {"environment_id", "block_number", "block_hash", "status", "node_hash", "reorg_id",
          "depth", "reason", "rows_removed", "diff_transfer_removed"})
        QVERIFY2(col(name) >= 0, name);

    int checkpoints = 0;
    int reorgs = 0;
    const auto store = store::ReadOnlyStore::open(m_lab->db());
    store::ContractReader& db = store->reader();
    for (const QStringList& r : rows.mid(1)) {
        QCOMPARE(r.size(), header.size());
        QCOMPARE(r[col("environment_id")], QString("env-a"));
        if (r[0] == "checkpoint") {
            ++checkpoints;
            const auto q = db.query("SELECT block_number, block_hash FROM indexer_checkpoints "
                                    "WHERE environment_id = 'env-a' AND source_id = ?",
                                    {r[col("source_id")]});
            QVERIFY(q->next());
            QCOMPARE(r[col("block_number")], q->value(0).toString());
            QCOMPARE(r[col("block_hash")], q->value(1).toString());
            QCOMPARE(r[col("status")], QString("reorged"));
            QVERIFY(r[col("check_method")].contains(", ") || !r[col("check_method")].isEmpty());
        } else {
            QCOMPARE(r[0], QString("reorg"));
            ++reorgs;
            const auto q = db.query("SELECT depth, reason, rows_removed, (SELECT count(*) FROM "
                                    "reorg_diff_items d WHERE d.reorg_id = e.id AND d.kind = "
                                    "'transfer_removed') FROM reorg_events e WHERE id = ? AND "
                                    "environment_id = 'env-a'",
                                    {r[col("reorg_id")].toLongLong()});
            QVERIFY(q->next());
            QCOMPARE(r[col("depth")], q->value(0).toString());
            QCOMPARE(r[col("reason")], q->value(1).toString());
            QCOMPARE(r[col("rows_removed")], q->value(2).toString());
            QCOMPARE(r[col("diff_transfer_removed")], q->value(3).toString());
            QVERIFY(r[col("block_hash")].isEmpty()); // checkpoint columns stay empty
        }
    }
    QCOMPARE(
        checkpoints,
        int(scalar("SELECT count(*) FROM indexer_checkpoints WHERE environment_id = ?", "env-a")));
    QCOMPARE(reorgs,
             int(scalar("SELECT count(*) FROM reorg_events WHERE environment_id = ?", "env-a")));
}

void TestReport::pdfWithoutADisplay_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("env");
    for (const QString& backend : test::StoreRows::backends()) {
        QTest::addRow("%s, archived env with reorgs", qPrintable(backend)) << backend << "env-a";
        QTest::addRow("%s, live env", qPrintable(backend)) << backend << "env-b";
    }
}

void TestReport::pdfWithoutADisplay()
{
    QFETCH(QString, backend);
    QFETCH(QString, env);
    use(backend);
#if !FORKSCOPE_HAS_GUI
    // A headless build has no PDF writer: one usage line, no file, no application object.
    const QString refused = m_lab->tempPath(env + "-headless.pdf");
    const QStringList mentions{"--format pdf", "FORKSCOPE_BUILD_GUI=OFF", "json or csv"};
    VERIFY_ONE_ERROR_LINE(report({"--format", "pdf", "--env", env}, refused), 2, mentions);
    QVERIFY(!QFile::exists(refused));
    return;
#endif
    const QString pdfinfo = QStandardPaths::findExecutable("pdfinfo");
    const QString pdftotext = QStandardPaths::findExecutable("pdftotext");
    QVERIFY2(!pdfinfo.isEmpty() && !pdftotext.isEmpty(),
             "pdfinfo/pdftotext not found: run packaging/bootstrap.sh (poppler-utils)");
    // No display and no platform chosen: the command must pick offscreen by itself.
    QProcessEnvironment noDisplay = QProcessEnvironment::systemEnvironment();
    for (const char* var : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
        noDisplay.remove(var);
    const QString out = m_lab->tempPath(env + ".pdf");
    const ProcessRun run = report({"--format", "pdf", "--env", env}, out, noDisplay);
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains("report: wrote"), qPrintable(run.out));
    // Nothing but our own lines on stderr: the live env none, the archived one a warning.
    if (env == "env-b")
        QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    else
        QVERIFY2(run.err.trimmed().count('\n') == 0 &&
                     run.err.startsWith("forkscope: warning: node ") &&
                     run.err.contains("serves another chain"),
                 qPrintable(run.err));

    const QString info = runTool(pdfinfo, {out});
    const QRegularExpressionMatch pages = QRegularExpression("Pages:\\s+(\\d+)").match(info);
    QVERIFY2(pages.hasMatch(), qPrintable(info));
    QVERIFY2(pages.captured(1).toInt() >= 2, qPrintable(info)); // a summary, then the detail
    QVERIFY(info.contains("A4"));

    const QString text = runTool(pdftotext, {"-layout", out, "-"});
    const QString hash =
        row("SELECT block_hash FROM indexer_checkpoints WHERE environment_id = ?", {env})[0]
            .toString();
    QVERIFY2(text.contains(hash), qPrintable(text.left(3000)));
    QVERIFY(text.contains("Environment " + env));
    QVERIFY2(text.contains(env == "env-a" ? "reorged" : "the node has the same block at export"),
             qPrintable(text.left(3000)));
    QVERIFY(text.contains(env == "env-a" ? "Invariants not checked" : "Invariants hold"));
    // The verdict said once, not "Invariants hold: invariants hold: ...".
    QVERIFY2(!text.contains(QRegularExpression("Invariants \\w+: (invariants|not checked)",
                                               QRegularExpression::CaseInsensitiveOption)),
             qPrintable(text.left(600)));
    // What a rollback undid, in the data's words, not the diff's column names.
    if (env == "env-a")
        QVERIFY2(text.contains(QRegularExpression("\\d+ transfers? removed")) &&
                     !text.contains("transfer_removed"),
                 qPrintable(text.left(3000)));
}

void TestReport::badInputs_data()
{
    // clang-format off
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("mentions");
    for (const QString& backend : test::StoreRows::backends())
        badInputRows(backend);
}

void TestReport::badInputRows(const QString& backend)
{
    const QByteArray b = backend.toLatin1();
    // clang-format off
    const auto newRow = [&](const char* name) -> QTestData& {
        return QTest::addRow("%s, %s", b.constData(), name) << backend;
    };
    newRow("unknown env") << QStringList{"--format", "json", "--env", "nope"} << 1
                                 << QStringList{"nope", "env-a (archived", "env-b (live)"};
    newRow("bad format") << QStringList{"--format", "xml"} << 2
                                << QStringList{"--format", "xml", "json, csv, pdf"};
    newRow("missing format") << QStringList{} << 2 << QStringList{"--format is required"};
    if (backend == "sqlite")
        newRow("missing db") << QStringList{"--format", "json", "--db", "/nonexistent/x.sqlite"}
                             << 1 << QStringList{"/nonexistent/x.sqlite", "does not exist"};
    else
        newRow("unreachable db")
            << QStringList{"--format", "json", "--db", "postgresql://postgres:secret@127.0.0.1:1/x"}
            << 1 << QStringList{"127.0.0.1:1"};
    newRow("unwritable out")
        << QStringList{"--format", "csv", "--out", "/nonexistent-dir/r.csv"} << 1
        << QStringList{"--out", "/nonexistent-dir"};
#if FORKSCOPE_HAS_GUI
    newRow("out is a directory")
        << QStringList{"--format", "pdf", "--out", "/tmp"} << 1 << QStringList{"directory"};
#else
    newRow("out is a directory")
        << QStringList{"--format", "csv", "--out", "/tmp"} << 1 << QStringList{"directory"};
#endif
    newRow("bad rpc") << QStringList{"--format", "json", "--rpc", "ftp://x"} << 2
                             << QStringList{"--rpc"};
    // clang-format on
}

void TestReport::badInputs()
{
    QFETCH(QString, backend);
    use(backend);
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QStringList, mentions);
    const QString out = m_lab->tempPath("bad-input.out");
    // The lab's database and a fresh output path, unless the row is about those.
    QStringList full{"report"};
    if (!args.contains("--db"))
        full << "--db" << m_lab->db();
    if (!args.contains("--out"))
        full << "--out" << out;
    const QStringList before = QDir(m_lab->tempPath(".")).entryList(QDir::Files);
    const ProcessRun run =
        test::runForkscope(full + args, QProcessEnvironment::systemEnvironment(), 60000);
    VERIFY_ONE_ERROR_LINE(run, exitCode, mentions);
    QVERIFY(!QFile::exists(out));
    QVERIFY(!QFile::exists("/nonexistent-dir/r.csv"));
    QCOMPARE(QDir(m_lab->tempPath(".")).entryList(QDir::Files), before); // no temp file left
}

void TestReport::seriesStayWithinTheBound_data()
{
    // The charts' series are thinned in SQL to at most 2,000 rows each: never all rows read.
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("blocks");    // blocks 0..blocks-1
    QTest::addColumn<int>("delivered"); // outbox rows delivered, one second apart
    QTest::addColumn<int>("pending");   // undelivered rows, one every third block
    for (const QString& backend : test::StoreRows::backends()) {
        const QByteArray b = backend.toLatin1();
        QTest::addRow("%s, under the bound", b.constData()) << backend << 1999 << 1500 << 600;
        QTest::addRow("%s, at the bound", b.constData()) << backend << 2000 << 2000 << 666;
        QTest::addRow("%s, one over", b.constData()) << backend << 2001 << 2001 << 667;
        QTest::addRow("%s, several times over", b.constData()) << backend << 7777 << 5003 << 2592;
    }
}

namespace {
// Environment "big" of `blocks` blocks, `delivered` delivered outbox rows and `pending`
// undelivered ones, written straight into a new PostgreSQL database's own tables (rows that
// keep their own key and payload, as retractions do: no log needed), with a checkpoint on
// the last block (the views are cut there). As the SQLite rows below.
void fillPgSeries(store::pg::PgConnection& db, int blocks, int delivered, int pending)
{
    store::pg::ensurePgContract(db);
    store::pg::PgTransaction tx(db);
    const QByteArray n = QByteArray::number(blocks);
    db.run("series_blocks",
           "INSERT INTO block_store SELECT 'big', 31337, i, decode(repeat('00', 32), 'hex'), "
           "decode(repeat('00', 32), 'hex'), 1700000000 + 2 * i FROM generate_series(0, $1::int "
           "- 1) i",
           {n});
    db.run("series_delivered",
           "INSERT INTO outbox_store (environment_id, chain_id, block_number, event_key, payload, "
           "delivered_at) SELECT 'big', 31337, i % $2::int, 'd:' || i, '{}', to_timestamp("
           "1700000000 + i) FROM generate_series(0, $1::int - 1) i",
           {QByteArray::number(delivered), n});
    db.run("series_pending",
           "INSERT INTO outbox_store (environment_id, chain_id, block_number, event_key, payload) "
           "SELECT 'big', 31337, 3 * i, 'p:' || i, '{}' FROM generate_series(0, $1::int - 1) i",
           {QByteArray::number(pending)});
    db.run("series_checkpoint",
           "INSERT INTO checkpoint_store (environment_id, chain_id, source_id, block_number, "
           "block_hash, start_block) VALUES ('big', 31337, 'default', $1::int - 1, "
           "decode(repeat('00', 32), 'hex'), 0)",
           {n});
    tx.commit();
}
} // namespace

void TestReport::seriesStayWithinTheBound()
{
    QFETCH(QString, backend);
    QFETCH(int, blocks);
    QFETCH(int, delivered);
    QFETCH(int, pending);
    QTemporaryDir dir;
    std::unique_ptr<store::pg::PgConnection> pg;
    std::unique_ptr<store::Database> db;
    std::unique_ptr<store::ContractReader> reader;
    if (backend == "postgresql") {
        pg = store::pg::PgConnection::open(m_stores.freshDatabase(backend));
        fillPgSeries(*pg, blocks, delivered, pending);
        reader = std::make_unique<store::pg::PgContractReader>(*pg);
    } else {
        db = store::Database::open(dir.filePath(QStringLiteral("series.sqlite")));
        reader = std::make_unique<store::SqliteContractReader>(*db);
        store::WriteTransaction tx(*db);
        db->run(QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
                               "WHERE i + 1 < ?) INSERT INTO block_store SELECT 'big', 31337, i, "
                               "zeroblob(32), zeroblob(32), 1700000000 + 2 * i FROM n"),
                {blocks});
        // Rows that keep their own key and payload (as retractions do): no log needed.
        db->run(QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
                               "WHERE i + 1 < ?) INSERT INTO outbox_store (environment_id, "
                               "chain_id, block_number, event_key, payload, delivered_at) SELECT "
                               "'big', 31337, i % ?, 'd:' || i, '{}', strftime('%Y-%m-%dT%H:%M:"
                               "%fZ', 1700000000 + i, 'unixepoch') FROM n"),
                {delivered, blocks});
        db->run(QStringLiteral("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
                               "WHERE i + 1 < ?) INSERT INTO outbox_store (environment_id, "
                               "chain_id, block_number, event_key, payload) SELECT 'big', 31337, "
                               "3 * i, 'p:' || i, '{}' FROM n"),
                {pending});
        tx.commit();
    }
    report::CheckpointReport r;
    r.environment.id = QStringLiteral("big");
    r.environment.chainId = 31337;
    report::ReportSections(*reader, r).readSeries();
    const report::Series& s = r.series;
    const int bound = report::CheckpointReport::kMaxSeriesPoints;

    QCOMPARE(s.blocksTotal, qint64(blocks));
    QVERIFY2(s.blocks.size() <= bound, qPrintable(QString::number(s.blocks.size())));
    QCOMPARE(s.blocks.size(), std::min(blocks, bound));
    QCOMPARE(s.blocks.first().y, 0.0);
    QCOMPARE(s.blocks.last().y, double(blocks - 1)); // the cursor's end
    for (qsizetype i = 1; i < s.blocks.size(); ++i)
        QVERIFY(s.blocks[i].y > s.blocks[i - 1].y && s.blocks[i].x > s.blocks[i - 1].x);

    QCOMPARE(s.outboxDeliveredTotal, qint64(delivered));
    QVERIFY2(s.outboxDelivered.size() <= bound,
             qPrintable(QString::number(s.outboxDelivered.size())));
    QCOMPARE(s.outboxDelivered.first().y, 1.0);
    QCOMPARE(s.outboxDelivered.first().x, 1700000000.0);
    QCOMPARE(s.outboxDelivered.last().y, double(delivered)); // the running total's end
    QCOMPARE(s.outboxDelivered.last().x, 1700000000.0 + delivered - 1);

    QVERIFY2(s.outboxPendingByBlock.size() <= bound,
             qPrintable(QString::number(s.outboxPendingByBlock.size())));
    QCOMPARE(s.outboxPendingByBlock.first().x, 0.0);
    double total = 0;
    for (const report::SeriesPoint& point : s.outboxPendingByBlock)
        total += point.y;
    QCOMPARE(total, double(pending)); // every undelivered row counted once
}

void TestReport::noVerifyAsksNoNode()
{
    QFETCH(QString, backend);
    use(backend);
    const QJsonObject r = jsonReport({"--env", "env-b", "--no-verify"});
    const QJsonObject v =
        r.value("checkpoints").toArray().first().toObject().value("verification").toObject();
    QCOMPARE(v.value("status").toString(), QString("not-checked"));
    QVERIFY(v.value("checked_at").isNull());
    QCOMPARE(r.value("node").toObject().value("checked").toBool(), false);
    QCOMPARE(r.value("invariants").toObject().value("state").toString(), QString("not-checked"));
}

void TestReport::databaseUnchanged()
{
    QFETCH(QString, backend);
    use(backend);
    QCOMPARE(m_lab->dump(), m_dumpsBefore.value(backend));
}

namespace {
// The report's JSON without the moment it was written.
QJsonObject withoutGeneratedAt(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    o.remove("generated_at");
    return o;
}

QByteArray sha256(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}
} // namespace

// A WAL database whose last commit is still in its -wal: the index of env-ro, then one more
// reorg_events row written by `sqlite3` with its checkpoint on close turned off, so the
// -wal and -shm stay beside the file as a copy taken while an indexer runs would have them.
const QString& TestReport::readOnlySource()
{
    if (!m_readOnlySource.isEmpty())
        return m_readOnlySource;
    const QString db = m_lab->tempPath("ro-source/wal.sqlite");
    if (!QDir().mkpath(QFileInfo(db).absolutePath()))
        return m_readOnlySource;
    QStringList index{"index",
                      "--rpc",
                      m_lab->devnet().url().toString(),
                      "--db",
                      db,
                      "--env",
                      "env-ro",
                      "--exit-when-synced"};
    if (test::runForkscope(index + m_lab->contractArgs()).exitCode != 0)
        return m_readOnlySource;
    QProcess sqlite3;
    sqlite3.start(QStandardPaths::findExecutable("sqlite3"),
                  {db, ".dbconfig no_ckpt_on_close on",
                   "INSERT INTO reorg_events (environment_id, chain_id, detected_at, "
                   "old_block_number, fork_block_number, depth, reason, rows_removed) VALUES "
                   "('env-ro', 31337, '2030-01-01T00:00:00.000Z', 7, 6, 1, 'only in the wal', 0)"});
    if (!sqlite3.waitForFinished(20000) || sqlite3.exitCode() != 0 ||
        QFileInfo(db + "-wal").size() == 0 || !QFileInfo::exists(db + "-shm"))
        return m_readOnlySource;
    m_readOnlySource = db;
    return m_readOnlySource;
}

void TestReport::reportFromAReadOnlyPlace_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QStringList>("beside");  // the database's files copied with it
    QTest::addColumn<QString>("warning");     // how the one warning line starts, if any
    QTest::addColumn<bool>("walCommitShown"); // the commit only the -wal holds is in the report
    QStringList formats{"json", "csv"};
#if FORKSCOPE_HAS_GUI
    formats << "pdf";
#endif
    for (const QString& format : formats) {
        // SQLite cannot create the -shm there: read immutable, which is exact with no -wal.
        QTest::addRow("%s, the database alone", qPrintable(format))
            << format << QStringList{} << "opened immutable" << false;
        // It cannot create the -shm either, and must not ignore the -wal's commits.
        QTest::addRow("%s, with its -wal", qPrintable(format))
            << format << QStringList{"-wal"} << "read without locks" << true;
        // A read-only -shm is enough for SQLite to read the -wal itself.
        QTest::addRow("%s, with its -wal and -shm", qPrintable(format))
            << format << QStringList{"-wal", "-shm"} << QString() << true;
    }
}

void TestReport::reportFromAReadOnlyPlace()
{
    // A copy of a WAL database in a place this user cannot write (a read-only mount, a CD, a
    // backup share, someone else's directory): SQLite can neither create nor open for
    // writing the -wal and -shm it needs beside the file. The report must still be written,
    // from the same data as from a writable copy of the same files, with one line when the
    // way it was read gives something up, and without changing a byte there.
    use(QStringLiteral("sqlite"));
    QFETCH(QString, format);
    QFETCH(QStringList, beside);
    QFETCH(QString, warning);
    QFETCH(bool, walCommitShown);
    const QString source = readOnlySource();
    QVERIFY2(!source.isEmpty(), "could not make the source database with a -wal");
    const QString tag =
        QString::fromLatin1(QTest::currentDataTag()).replace(QRegularExpression("\\W+"), "-");
    const QString writable = m_lab->tempPath("w-" + tag);
    const QString ro = m_lab->tempPath("ro-" + tag);
    QStringList files{"wal.sqlite"};
    for (const QString& suffix : beside)
        files << "wal.sqlite" + suffix;
    for (const QString& dir : {writable, ro}) {
        QVERIFY(QDir().mkpath(dir));
        for (const QString& f : files)
            QVERIFY(QFile::copy(QFileInfo(source).absolutePath() + "/" + f, dir + "/" + f));
    }
    const QString expected = m_lab->tempPath("expected-" + tag + "." + format);
    VERIFY_EXIT_OK(test::runForkscope({"report", "--db", writable + "/wal.sqlite", "--format",
                                       format, "--out", expected, "--no-verify"}));

    const auto readOnly = QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther;
    const auto search = QFileDevice::ExeOwner | QFileDevice::ExeGroup | QFileDevice::ExeOther;
    for (const QString& f : files)
        QVERIFY(QFile::setPermissions(ro + "/" + f, readOnly));
    QVERIFY(QFile::setPermissions(ro, readOnly | search));
    const auto writableAgain = qScopeGuard([&] {
        QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                      QFileDevice::ExeOwner);
    });
    QHash<QString, QByteArray> before;
    for (const QString& f : files)
        before.insert(f, sha256(ro + "/" + f));
    // Root writes anywhere (CAP_DAC_OVERRIDE), and CI runs as root: run the report without
    // that capability, as a user would be. setpriv drops it from the bounding set of the
    // report process only (util-linux, on every Debian and Ubuntu).
    QString program = QStringLiteral(FORKSCOPE_BINARY);
    QStringList prefix;
    if (::geteuid() == 0) {
        const QString setpriv = QStandardPaths::findExecutable("setpriv");
        QVERIFY2(!setpriv.isEmpty(), "running as root without setpriv (util-linux): cannot make "
                                     "a directory read-only for root");
        prefix << "--inh-caps=-dac_override,-dac_read_search"
               << "--bounding-set=-dac_override,-dac_read_search" << program;
        program = setpriv;
    }
    const QString db = ro + "/wal.sqlite";
    const QString out = m_lab->tempPath("from-" + tag + "." + format);
    QProcess p;
    p.start(program, prefix + QStringList{"report", "--db", db, "--format", format, "--out", out,
                                          "--no-verify"});
    QVERIFY(p.waitForStarted());
    const ProcessRun run = test::waitForProcess(p, 60000);
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.startsWith("report: wrote " + out), qPrintable(run.out));
    const QString err = run.err.trimmed();
    if (warning.isEmpty()) {
        QVERIFY2(err.isEmpty(), qPrintable(err));
    } else {
        // One line that says how it was read and what that gives up.
        QCOMPARE(err.split('\n').size(), 1);
        QVERIFY2(err.startsWith("forkscope: warning: database " + db + " " + warning) &&
                     err.contains("read-only filesystem or directory") &&
                     !err.contains("could not be read"),
                 qPrintable(err));
    }

    // The same report as from the writable copy, the -wal's commit in it when it was there.
    QFile got(out);
    QFile want(expected);
    QVERIFY(got.open(QIODevice::ReadOnly) && want.open(QIODevice::ReadOnly));
    if (format == "json") {
        // The report names the file it read, which is the only difference allowed.
        QJsonObject read = withoutGeneratedAt(out);
        QCOMPARE(read.take("database").toString(), db);
        QJsonObject fromWritable = withoutGeneratedAt(expected);
        fromWritable.remove("database");
        QCOMPARE(read, fromWritable);
        QCOMPARE(QJsonDocument::fromJson(got.readAll()).toJson().contains("only in the wal"),
                 walCommitShown);
    } else if (format == "csv") {
        const QByteArray csv = got.readAll();
        QCOMPARE(csv, want.readAll());
        QCOMPARE(csv.contains("only in the wal"), walCommitShown);
    } else {
        QVERIFY(got.readAll().startsWith("%PDF-"));
        const QString pdftotext = QStandardPaths::findExecutable("pdftotext");
        QVERIFY2(!pdftotext.isEmpty(), "pdftotext not found: run packaging/bootstrap.sh");
        QCOMPARE(runTool(pdftotext, {out, "-"}).contains("only in the wal"), walCommitShown);
    }
    // Nothing created or changed there.
    files.sort();
    QCOMPARE(QDir(ro).entryList(QDir::Files), files);
    for (const QString& f : files)
        QCOMPARE(sha256(ro + "/" + f), before.value(f));
}

void TestReport::unreachableNodeStillWritesTheReport()
{
    QFETCH(QString, backend);
    use(backend);
    m_lab->devnet().stop(); // the environment's stored rpc_url now refuses connections
    const QString out = m_lab->tempPath("unreachable.json");
    const ProcessRun run = report({"--format", "json", "--env", "env-b"}, out);
    VERIFY_EXIT_OK(run);
    const QStringList lines = run.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines[0].startsWith("forkscope: warning: node ") && lines[0].contains("unreachable"),
             qPrintable(run.err));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject r = QJsonDocument::fromJson(f.readAll()).object();
    const QJsonObject v =
        r.value("checkpoints").toArray().first().toObject().value("verification").toObject();
    QCOMPARE(v.value("status").toString(), QString("unreachable"));
    QVERIFY(!v.value("error").toString().isEmpty());
    QCOMPARE(r.value("node").toObject().value("reachable").toBool(), false);
    const QJsonObject inv = r.value("invariants").toObject();
    QCOMPARE(inv.value("state").toString(), QString("not-checked"));
    QVERIFY(inv.value("summary").toString().startsWith("not checked: node unreachable"));
    QCOMPARE(m_lab->dump(), m_dumpsBefore.value(backend));
}

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
