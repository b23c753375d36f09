// `forkscope lab run`: a foreign indexer put through seeded scenarios on the lab's anvil and
// audited after each step, as a user runs it from the command line: Ponder (pinned, from
// npm), our own `forkscope index`, and a deliberately careless script; and the scenarios'
// plans themselves.
#include "IndexerLab.h"
#include "lab/run/LabScenario.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QUuid>
#include <QXmlStreamReader>
#include <QtTest>

using namespace forkscope;
using namespace forkscope::test;

namespace {

QString ponderCommand()
{
    return QStringLiteral("exec bash '%1/resources/indexers/ponder/run.sh'")
        .arg(QStringLiteral(FORKSCOPE_SOURCE_DIR));
}

// The lab's Ponder project stores the contract and the block hash too, so every token and
// every orphaned row can be told.
const QString kPonderQuery = QStringLiteral(
    "SELECT block_number, log_index, block_hash, contract, \"from\", \"to\", amount AS value "
    "FROM ponder_lab.transfer_event");

// Our own indexer as the foreign command: the lab's tokens, its node, its database.
QString ownIndexerCommand()
{
    return QStringLiteral("exec '%1' index --rpc {rpc} --db {database} --env lab "
                          "--contract {contracts} --poll-ms 200 --retry-incomplete-ms 200")
        .arg(QStringLiteral(FORKSCOPE_BINARY));
}

// Our Transfers, with the hash of the block each is stored under.
const QString kOwnQuery = QStringLiteral(
    "SELECT t.block_number, t.log_index, t.tx_hash, b.block_hash, t.contract, "
    "t.from_addr AS \"from\", t.to_addr AS \"to\", t.value FROM transfer_events t "
    "JOIN blocks b ON b.environment_id = t.environment_id AND b.chain_id = t.chain_id "
    "AND b.block_number = t.block_number");

// tests/data/careless-indexer.py's table.
const QString kCarelessQuery =
    QStringLiteral("SELECT block_number, log_index, block_hash, contract, \"from\", \"to\", value "
                   "FROM transfer");

// The run's JSON, read back.
QJsonObject runJson(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// The processes whose environment holds FORKSCOPE_TEST_RUN_TAG=tag.
QStringList processesTagged(const QString& tag)
{
    const QByteArray needle = "FORKSCOPE_TEST_RUN_TAG=" + tag.toLatin1();
    QStringList out;
    for (const QString& pid : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        QFile f(QStringLiteral("/proc/%1/environ").arg(pid));
        if (pid.toInt() > 0 && f.open(QIODevice::ReadOnly) &&
            f.readAll().split('\0').contains(needle))
            out << pid;
    }
    return out;
}

// The PDF's text as pdftotext reads it (empty when it cannot).
QString pdfText(const QString& path)
{
    QProcess p;
    p.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), path, QStringLiteral("-")});
    p.waitForFinished(30000);
    return QString::fromUtf8(p.readAllStandardOutput()).simplified();
}

} // namespace

class TestLabRun : public QObject
{
    Q_OBJECT

private slots:
    void plansAreSeeded_data();
    void plansAreSeeded();
    void badArgumentsGetOneLine_data();
    void badArgumentsGetOneLine();
    void anIndexerThatDiesStopsTheRun();
    void ponderThroughAScenario_data();
    void ponderThroughAScenario();
    void ourIndexerPassesEveryScenario_data();
    void ourIndexerPassesEveryScenario();
    void aCarelessIndexerIsCaught_data();
    void aCarelessIndexerIsCaught();
};

void TestLabRun::plansAreSeeded_data()
{
    QTest::addColumn<QString>("name");
    for (const QString& n : lab::labScenarioNames())
        QTest::newRow(qPrintable(n)) << n;
}

void TestLabRun::plansAreSeeded()
{
    QFETCH(QString, name);
    const auto scenario = lab::labScenarioNamed(name);
    QVERIFY(scenario);
    QCOMPARE(lab::labScenarioName(*scenario), name);
    QStringList first, again, other;
    for (const auto& s : lab::planLabScenario(*scenario, 7))
        first << s.describe();
    for (const auto& s : lab::planLabScenario(*scenario, 7))
        again << s.describe();
    QCOMPARE(again, first);
    const QList<lab::LabStep> plan = lab::planLabScenario(*scenario, 7);
    QVERIFY(plan.last().audit); // every scenario ends with a verdict on what it did
    int chain = 0;              // blocks of transfers above the tokens' deployments
    for (const lab::LabStep& s : plan) {
        if (s.action == lab::LabStep::Action::Transfers)
            chain += s.count;
        if (s.action == lab::LabStep::Action::Reorg) {
            QVERIFY2(s.count < chain, qPrintable(s.describe())); // never the deployments
            QVERIFY(s.offset < s.count);
            if (*scenario == lab::LabScenario::ReorgStorm)
                QVERIFY(s.count >= 1 && s.count <= 12);
            if (*scenario == lab::LabScenario::DeepReorg)
                QVERIFY(s.count >= 24 && s.count <= 40);
        }
    }
    // Other seeds play other steps (for the scenarios that draw anything).
    for (quint32 seed = 8; seed < 40 && other.isEmpty(); ++seed) {
        QStringList steps;
        for (const auto& s : lab::planLabScenario(*scenario, seed))
            steps << s.describe();
        if (steps != first)
            other = steps;
    }
    QVERIFY(!other.isEmpty());
}

void TestLabRun::badArgumentsGetOneLine_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    const QStringList base{"lab", "run", "--indexer", "true", "--scenario", "reorg-storm"};
    QTest::newRow("no indexer") << QStringList{"lab",         "run",      "--scenario",
                                               "reorg-storm", "--preset", "ponder"}
                                << "--indexer is required";
    QTest::newRow("unknown scenario") << QStringList{"lab",        "run",   "--indexer", "true",
                                                     "--scenario", "storm", "--preset",  "ponder"}
                                      << "--scenario: `storm` is none of reorg-storm";
    QTest::newRow("no query") << base << "give --query or --preset";
    QTest::newRow("query and preset")
        << base + QStringList{"--query", "SELECT 1", "--preset", "ponder"}
        << "give --query or --preset";
    QTest::newRow("bad seed") << base + QStringList{"--preset", "ponder", "--seed", "-1"}
                              << "--seed";
    QTest::newRow("empty indexer")
        << QStringList{"lab",        "run",         "--indexer", " ",
                       "--scenario", "reorg-storm", "--preset",  "ponder"}
        << "--indexer: expected the command";
}

void TestLabRun::badArgumentsGetOneLine()
{
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const ProcessRun run = runForkscope(args);
    QCOMPARE(run.exitCode, 2);
    const QStringList lines = run.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().contains(expected), qPrintable(run.err));
    QVERIFY2(run.out.isEmpty(), qPrintable(run.out)); // nothing was started
}

void TestLabRun::anIndexerThatDiesStopsTheRun()
{
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("run.json"));
    const QString pdf = dir.filePath(QStringLiteral("run.pdf"));
    const ProcessRun run =
        runForkscope({"lab", "run", "--indexer", "echo no such project; exit 3", "--scenario",
                      "kill-restart", "--query", kPonderQuery, "--json", json, "--pdf", pdf});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.out.contains("the indexer exited on its own"), qPrintable(run.out));
    QVERIFY2(run.out.contains("no such project"), qPrintable(run.out)); // its own words
    QVERIFY2(run.out.contains("everything the lab started is stopped"), qPrintable(run.out));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(o.value("passed").toBool(true), false);
    QVERIFY(o.value("aborted").toString().contains("exited on its own"));
    // The PDF says the same, first.
    const QString text = pdfText(pdf);
    QVERIFY2(text.contains("Lab run: kill-restart, seed 1"), qPrintable(text));
    QVERIFY2(text.contains("verdict: FAIL (the run stopped: the indexer exited on its own"),
             qPrintable(text));
    QVERIFY2(text.contains("indexer started: echo no such project"), qPrintable(text));
}

void TestLabRun::ponderThroughAScenario_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("finding");
    // Ponder follows reorgs: every audit of the storm is clean.
    QTest::newRow("reorg storm") << "reorg-storm" << 0 << QString();
    // Ponder believes a provider that cuts eth_getLogs short without a word: the Transfers
    // it never received are missing, and stay missing after the cap is lifted.
    QTest::newRow("silent log cap") << "silent-log-cap" << 1 << "missing";
}

void TestLabRun::ponderThroughAScenario()
{
    QFETCH(QString, scenario);
    QFETCH(int, exitCode);
    QFETCH(QString, finding);
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("run.json"));
    const QString junit = dir.filePath(QStringLiteral("run.xml"));
    const QString pdf = dir.filePath(QStringLiteral("run.pdf"));
    // A tag every process of this run inherits, to find any left behind.
    const QString tag = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("FORKSCOPE_TEST_RUN_TAG"), tag);
    const ProcessRun run =
        runForkscope({"lab", "run", "--indexer", ponderCommand(), "--scenario", scenario, "--query",
                      kPonderQuery, "--json", json, "--junit", junit, "--pdf", pdf},
                     env, 400000);
    QVERIFY2(run.finished, qPrintable(run.describe()));
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(run.out.contains("everything the lab started is stopped"), qPrintable(run.out));

    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(o.value("scenario").toString(), scenario);
    QCOMPARE(o.value("passed").toBool(), exitCode == 0);
    const QJsonArray audits = o.value("audits").toArray();
    QVERIFY(audits.size() >= 2);
    qint64 found = 0;
    for (const QJsonValue& a : audits) {
        QVERIFY2(a["caught_up"].toBool() || exitCode != 0, qPrintable(run.out));
        found += a["audit"]["counts"][finding.isEmpty() ? "missing" : finding].toInteger();
        if (exitCode == 0)
            QVERIFY2(a["clean"].toBool(), qPrintable(run.out));
    }
    if (!finding.isEmpty())
        QVERIFY2(found > 0, qPrintable(run.out));

    QFile x(junit);
    QVERIFY(x.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&x);
    int cases = 0, failures = 0;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("testcase"))
            ++cases;
        if (xml.isStartElement() && xml.name() == QLatin1String("failure"))
            ++failures;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(cases, audits.size());
    QCOMPARE(failures > 0, exitCode != 0);
    // The PDF leads with the same verdict the JSON gives.
    const QString text = pdfText(pdf);
    QVERIFY2(text.contains(o.value("verdict").toString()), qPrintable(text));
    // Nothing the lab started outlives it.
    QCOMPARE(processesTagged(tag), QStringList());
}

void TestLabRun::ourIndexerPassesEveryScenario_data()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<bool>("postgres"); // else a SQLite file
    for (const QString& s : lab::labScenarioNames())
        QTest::newRow(qPrintable(s + QStringLiteral(", sqlite"))) << s << false;
    QTest::newRow("reorg-storm, postgresql") << QStringLiteral("reorg-storm") << true;
}

void TestLabRun::ourIndexerPassesEveryScenario()
{
    // `forkscope index` follows every reorg, proves what each reply holds, and waits while
    // its only node withholds logs rather than store a hole: zero findings everywhere.
    QFETCH(QString, scenario);
    QFETCH(bool, postgres);
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("run.json"));
    QStringList args{"lab",
                     "run",
                     "--indexer",
                     ownIndexerCommand(),
                     "--scenario",
                     scenario,
                     "--query",
                     kOwnQuery,
                     "--json",
                     json,
                     "--catch-up-timeout-ms",
                     "60000"};
    if (!postgres)
        args << "--database" << dir.filePath(QStringLiteral("own.sqlite"));
    const ProcessRun run = runForkscope(args, QProcessEnvironment::systemEnvironment(), 300000);
    QVERIFY2(run.finished, qPrintable(run.describe()));
    QVERIFY2(run.exitCode == 0, qPrintable(run.out + run.err));
    const QJsonObject o = runJson(json);
    QVERIFY(o.value("passed").toBool());
    const QJsonArray audits = o.value("audits").toArray();
    QVERIFY(audits.size() >= 2);
    for (const QJsonValue& a : audits)
        QVERIFY2(a["clean"].toBool() && a["audit"]["findings"].toArray().isEmpty(),
                 qPrintable(run.out));
    // The last audit, after every fault has cleared, finds it caught up.
    QVERIFY2(audits.last()["caught_up"].toBool(), qPrintable(run.out));
}

void TestLabRun::aCarelessIndexerIsCaught_data()
{
    QTest::addColumn<QString>("flag");
    QTest::addColumn<QString>("finding");
    QTest::newRow("skips every tenth block") << "--skip-tenth"
                                             << "missing";
    QTest::newRow("ignores reorgs") << "--ignore-reorgs"
                                    << "orphaned";
}

void TestLabRun::aCarelessIndexerIsCaught()
{
    QFETCH(QString, flag);
    QFETCH(QString, finding);
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("run.json"));
    const QString script =
        QStringLiteral(FORKSCOPE_SOURCE_DIR) + QStringLiteral("/tests/data/careless-indexer.py");
    const ProcessRun run = runForkscope(
        {"lab", "run", "--indexer", QStringLiteral("exec python3 '%1' %2").arg(script, flag),
         "--scenario", "reorg-storm", "--database", dir.filePath(QStringLiteral("careless.sqlite")),
         "--query", kCarelessQuery, "--json", json, "--catch-up-timeout-ms", "30000"},
        QProcessEnvironment::systemEnvironment(), 300000);
    QVERIFY2(run.finished, qPrintable(run.describe()));
    QCOMPARE(run.exitCode, 1);
    const QJsonObject o = runJson(json);
    QCOMPARE(o.value("passed").toBool(true), false);
    qint64 found = 0;
    for (const QJsonValue& a : o.value("audits").toArray()) {
        found += a["audit"]["counts"][finding].toInteger();
        // Each finding names its block; skipped blocks are 5, 15, 25...
        for (const QJsonValue& f : a["audit"]["findings"].toArray())
            if (flag == QLatin1String("--skip-tenth"))
                QVERIFY2(f["kind"].toString() == QLatin1String("missing") &&
                             f["block"].toInteger() % 10 == 5,
                         qPrintable(QJsonDocument(f.toObject()).toJson()));
    }
    QVERIFY2(found > 0, qPrintable(run.out));
}

QTEST_GUILESS_MAIN(TestLabRun)
#include "tst_labrun.moc"
