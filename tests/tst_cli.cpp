// The forkscope executable as a user runs it: help, version, usage errors (every bad value
// of every flag and --config key is exit 2 with one line naming it), a start block above
// the head, the devnet subcommand, and the desktop app starting offscreen and quitting
// cleanly on SIGTERM.
#include "IndexerLab.h"
#include "rpc/EthClient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

using namespace forkscope;

namespace {
struct Run
{
    int code = -1;
    QString out;
    QString err;
};

Run runForkscope(const QStringList& args, int timeoutMs = 30000)
{
    // A desktop session has a runtime directory; without one Qt warns on stderr, and the
    // app's usage errors are asserted to be one line.
    static const QTemporaryDir runtimeDir; // created 0700, as Qt requires
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!env.contains(QStringLiteral("XDG_RUNTIME_DIR")))
        env.insert(QStringLiteral("XDG_RUNTIME_DIR"), runtimeDir.path());
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(FORKSCOPE_BINARY), args);
    p.waitForFinished(timeoutMs);
    return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

bool processAlive(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

// Reads lines from a running process until one matches; returns the match.
QRegularExpressionMatch waitForLine(QProcess& p, QProcess::ProcessChannel channel,
                                    const QRegularExpression& re, int timeoutMs, QString* seen)
{
    QElapsedTimer t;
    t.start();
    p.setReadChannel(channel);
    while (t.elapsed() < timeoutMs) {
        while (p.canReadLine()) {
            const QString line = QString::fromUtf8(p.readLine());
            *seen += line;
            const auto m = re.match(line);
            if (m.hasMatch())
                return m;
        }
        if (p.state() == QProcess::NotRunning)
            break;
        p.waitForReadyRead(200);
    }
    return {};
}
} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private slots:
    void version();
    void help();
    void commandHelp_data();
    void commandHelp();
    void usageErrors_data();
    void usageErrors();
    void screenshotSceneWritesALaptopSizedPng_data();
    void screenshotSceneWritesALaptopSizedPng();
    void screenshotSceneSaysAtOnceWhenTheDatabaseCannotBeOpened();
    void indexRefusesBadValues_data();
    void indexRefusesBadValues();
    void indexConfigRefusesWrongTypes_data();
    void indexConfigRefusesWrongTypes();
    void indexConfigWithEveryKeyRuns();
    void indexStartBlockAboveTheHead();
    void devnetRunsUntilInterrupted();
    void guiStartsOffscreenAndQuitsCleanly();
};

void TestCli::version()
{
    const Run r = runForkscope({"--version"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.startsWith("forkscope 0."), qPrintable(r.out));
}

void TestCli::help()
{
    const Run r = runForkscope({"--help"});
    QCOMPARE(r.code, 0);
    for (const char* cmd : {"index", "report", "lab reset", "devnet"})
        QVERIFY2(r.out.contains(QLatin1String(cmd)), cmd);
}

void TestCli::commandHelp_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("option");
    QTest::newRow("devnet") << "devnet"
                            << "--port";
    QTest::newRow("index") << "index"
                           << "--rpc";
    QTest::newRow("verify") << "verify"
                            << "--receipts";
    QTest::newRow("repair") << "repair"
                            << "--from";
    QTest::newRow("audit") << "audit"
                           << "--target";
    QTest::newRow("archive-contract") << "archive-contract"
                                      << "--contract";
    QTest::newRow("report") << "report"
                            << "--format"; // parsed before its application exists
}

void TestCli::commandHelp()
{
    QFETCH(QString, command);
    QFETCH(QString, option);
    const Run r = runForkscope({command, "--help"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(option), qPrintable(r.out));
    // "Usage: /path/to/forkscope [options] report", never Qt's placeholder.
    QVERIFY2(r.out.startsWith("Usage: ") && r.out.contains("forkscope [options] " + command) &&
                 !r.out.contains("<executable_name>"),
             qPrintable(r.out.left(200)));
}

void TestCli::usageErrors_data()
{
    // clang-format off
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("unknown command") << QStringList{"frobnicate"} << "unknown command `frobnicate`";
    QTest::newRow("report without format") << QStringList{"report", "--db", "x"} << "--format is required";
    QTest::newRow("report bad format")
        << QStringList{"report", "--db", "x", "--format", "xml", "--out", "y"} << "json, csv, pdf";
    QTest::newRow("lab without action") << QStringList{"lab"} << "expected an action";
    QTest::newRow("lab unknown action") << QStringList{"lab", "frob"} << "unknown action `frob`";
    QTest::newRow("lab reset without rpc") << QStringList{"lab", "reset", "--db", "x"} << "--rpc is required";
    QTest::newRow("lab reset rpc port 0") << QStringList{"lab", "reset", "--db", "x", "--rpc", "http://127.0.0.1:0/"} << "--rpc: \"http://127.0.0.1:0/\" names port 0";
    QTest::newRow("report rpc port 0") << QStringList{"report", "--db", "x", "--format", "json", "--out", "y", "--rpc", "http://127.0.0.1:0"} << "names port 0";
    QTest::newRow("repair rpc port 0") << QStringList{"repair", "--db", "x", "--env", "e", "--from", "1", "--rpc", "http://127.0.0.1:0"} << "names port 0";
    QTest::newRow("devnet bad port") << QStringList{"devnet", "--port", "70000"} << "--port";
    QTest::newRow("devnet negative port") << QStringList{"devnet", "--port", "-1"} << "--port";
#if FORKSCOPE_HAS_GUI
    QTest::newRow("app bad rpc") << QStringList{"--rpc", "http:8545"} << "--rpc: \"http:8545\" is not an http(s) URL";
    QTest::newRow("app bad env") << QStringList{"--env", "a b"} << "--env: environment \"a b\"";
    QTest::newRow("app bad screenshot scene")
        << QStringList{"--screenshot", "x.png", "--screenshot-scene", "sunset"}
        << "--screenshot-scene: \"sunset\" is not one of synced, reorg, incomplete, unreachable, "
           "contracts, forktree";
    QTest::newRow("app bad screenshot delay")
        << QStringList{"--screenshot", "x.png", "--screenshot-after-ms", "soon"}
        << "--screenshot-after-ms: \"soon\"";
#else
    QTest::newRow("app in a headless build") << QStringList{"--rpc", "http://127.0.0.1:1"} << "built without the desktop app (FORKSCOPE_BUILD_GUI=OFF)";
    QTest::newRow("no command in a headless build") << QStringList{} << "run one of its subcommands";
    QTest::newRow("report pdf in a headless build")
        << QStringList{"report", "--db", "x", "--format", "pdf", "--out", "y"} << "--format pdf needs the desktop build";
#endif
    QTest::newRow("devnet unknown option") << QStringList{"devnet", "--bogus"} << "bogus";
    QTest::newRow("devnet port nan") << QStringList{"devnet", "--port", "nan"} << "--port";
    QTest::newRow("devnet port inf") << QStringList{"devnet", "--port", "inf"} << "--port";
    QTest::newRow("devnet port fraction") << QStringList{"devnet", "--port", "80.5"} << "--port";
    QTest::newRow("devnet port exponent") << QStringList{"devnet", "--port", "8e3"} << "--port";
    QTest::newRow("devnet port garbage") << QStringList{"devnet", "--port", "8545x"} << "--port";
    QTest::newRow("devnet port space") << QStringList{"devnet", "--port", " 8545"} << "--port";
    QTest::newRow("devnet port empty") << QStringList{"devnet", "--port", ""} << "--port";
    QTest::newRow("devnet port overflow")
        << QStringList{"devnet", "--port", "18446744073709551616"} << "--port";
    QTest::newRow("devnet port twice")
        << QStringList{"devnet", "--port", "8545", "--port", "8546"} << "--port given 2 times";
    QTest::newRow("devnet nodes negative") << QStringList{"devnet", "--nodes", "-1"} << "--nodes";
    QTest::newRow("devnet nodes too many") << QStringList{"devnet", "--nodes", "17"} << "--nodes";
    QTest::newRow("devnet nodes nan") << QStringList{"devnet", "--nodes", "nan"} << "--nodes";
    QTest::newRow("devnet nodes empty") << QStringList{"devnet", "--nodes", ""} << "--nodes";
    QTest::newRow("report format twice")
        << QStringList{"report", "--db", "x", "--out", "y", "--format", "json", "--format", "csv"}
        << "--format given 2 times";
    QTest::newRow("report db twice")
        << QStringList{"report", "--db", "x", "--db", "z", "--out", "y", "--format", "json"}
        << "--db given 2 times";
    QTest::newRow("lab reset db twice")
        << QStringList{"lab", "reset", "--db", "x", "--db", "z", "--rpc", "http://127.0.0.1:1"}
        << "--db given 2 times";
    // clang-format on
}

void TestCli::screenshotSceneWritesALaptopSizedPng_data()
{
    QTest::addColumn<QString>("scene");
    QTest::newRow("synced") << QStringLiteral("synced");
    // Three reorgs injected one after the other, their branches in the Fork tree tab.
    QTest::newRow("forktree") << QStringLiteral("forktree");
}

void TestCli::screenshotSceneWritesALaptopSizedPng()
{
#if FORKSCOPE_HAS_GUI
    // packaging/screenshot.sh's path: the real app, a managed anvil, grabbed once the scene
    // is true of the window.
    QFETCH(QString, scene);
    QTemporaryDir dir;
    const QString png = dir.filePath(scene + ".png");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CONFIG_HOME", dir.filePath("config")); // no user settings
    env.insert("XDG_DATA_HOME", dir.filePath("data"));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(FORKSCOPE_BINARY),
            {"--db", dir.filePath("s.sqlite"), "--screenshot", png, "--screenshot-scene", scene,
             "--screenshot-after-ms", "1000"});
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    // The PNG's own header (this suite links no QtGui): signature, then IHDR width, height.
    QFile f(png);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray head = f.read(24);
    QVERIFY(head.startsWith("\x89PNG\r\n\x1a\n"));
    const auto be32 = [&](int at) {
        return (quint32(quint8(head[at])) << 24) | (quint32(quint8(head[at + 1])) << 16) |
               (quint32(quint8(head[at + 2])) << 8) | quint32(quint8(head[at + 3]));
    };
    QCOMPARE(be32(16), 1280u);
    QCOMPARE(be32(20), 720u);
#else
    QSKIP("headless build: no desktop app");
#endif
}

void TestCli::screenshotSceneSaysAtOnceWhenTheDatabaseCannotBeOpened()
{
#if FORKSCOPE_HAS_GUI
    // No scene can come once the engine has stopped on its database: the run says why and
    // exits 1, rather than waiting out the scene's timeout and naming only the scene.
    QTemporaryDir dir;
    QFile notADirectory(dir.filePath("file"));
    QVERIFY(notADirectory.open(QIODevice::WriteOnly));
    notADirectory.close();
    const QString png = dir.filePath("synced.png");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CONFIG_HOME", dir.filePath("config"));
    env.insert("XDG_DATA_HOME", dir.filePath("data"));
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(FORKSCOPE_BINARY),
            {"--db", dir.filePath("file/s.sqlite"), "--screenshot", png, "--screenshot-scene",
             "synced", "--screenshot-after-ms", "1000"});
    QVERIFY(p.waitForFinished(150000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(err.contains("screenshot scene synced: the engine stopped: cannot create database " +
                          dir.filePath("file/s.sqlite")),
             qPrintable(err));
    QVERIFY2(!err.contains("not reached"), qPrintable(err));
    QVERIFY(!QFile::exists(png));
#else
    QSKIP("headless build: no desktop app");
#endif
}

void TestCli::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, mentions);
    const Run r = runForkscope(args);
    QCOMPARE(r.code, 2);
    const QStringList lines = r.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 1); // one clear line
    QVERIFY2(lines[0].startsWith("forkscope: ") && lines[0].contains(mentions), qPrintable(r.err));
}

namespace {
const QString kContract = QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3");

// Exit 2, nothing on stdout, and one stderr line "forkscope: ..." naming every `mentions`.
void verifyUsageError(const Run& r, const QStringList& mentions)
{
    QVERIFY2(r.code == 2,
             qPrintable(QStringLiteral("exit %1: %2 %3").arg(r.code).arg(r.out, r.err)));
    const QStringList lines = r.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines[0].startsWith("forkscope: "), qPrintable(r.err));
    for (const QString& m : mentions)
        QVERIFY2(lines[0].contains(m), qPrintable(m + " not in: " + r.err));
    QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
}
} // namespace

void TestCli::indexRefusesBadValues_data()
{
    // Appended to a valid command line; each is refused before the node or the database is
    // touched. clang-format off
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QStringList>("mentions");
    const auto row = [](const char* name, const QStringList& extra, const QStringList& mentions) {
        QTest::newRow(name) << extra << mentions;
    };
    for (const char* bad : {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "-1", "0", "1.5",
                            "1.0000001", "", " ", "0.5x", "0x1", "1e400", "2/3"})
        row(qPrintable(QStringLiteral("ready-ratio \"%1\"").arg(bad)), {"--ready-ratio", bad},
            {"--ready-ratio", "finite number above 0 and at most 1"});
    // The storage bound: block numbers are SQLite's signed 64-bit INTEGER, and the indexer
    // derives others from the start block, so it stops at 2^62.
    row("from-block int64 max", {"--from-block", "9223372036854775807"},
        {"--from-block", "9223372036854775807", "2^62"});
    row("from-block 2^62 + 1", {"--from-block", "4611686018427387905"}, {"--from-block", "2^62"});
    row("from-block 2^64", {"--from-block", "18446744073709551616"}, {"--from-block", "63 bits"});
    row("from-block negative", {"--from-block", "-1"}, {"--from-block", "negative"});
    row("from-block fraction", {"--from-block", "1.5"}, {"--from-block", "fractional"});
    row("from-block exponent", {"--from-block", "1e3"}, {"--from-block", "fractional"});
    row("from-block nan", {"--from-block", "nan"}, {"--from-block", "'n'"});
    row("from-block garbage", {"--from-block", "12abc"}, {"--from-block", "'a'"});
    row("from-block space", {"--from-block", "12 "}, {"--from-block", "' '"});
    row("from-block empty", {"--from-block", ""}, {"--from-block", "whole number"});
    row("from-block twice", {"--from-block", "5", "--from-block", "7"},
        {"--from-block given 2 times (5, 7)"});
    row("confirmations negative", {"--confirmations", "-3"}, {"--confirmations", "negative"});
    row("confirmations inf", {"--confirmations", "inf"}, {"--confirmations"});
    row("confirmations overflow", {"--confirmations", "9223372036854775808"},
        {"--confirmations", "63 bits"});
    row("max-reorg-depth fraction", {"--max-reorg-depth", "6.4"}, {"--max-reorg-depth"});
    row("max-reorg-depth nan", {"--max-reorg-depth", "nan"}, {"--max-reorg-depth"});
    row("batch-size zero", {"--batch-size", "0"}, {"--batch-size", "1 to 10000"});
    row("batch-size too big", {"--batch-size", "10001"}, {"--batch-size", "1 to 10000"});
    row("batch-size garbage", {"--batch-size", "100k"}, {"--batch-size"});
    row("poll-ms too small", {"--poll-ms", "9"}, {"--poll-ms", "10 to 3600000"});
    row("poll-ms negative", {"--poll-ms", "-1000"}, {"--poll-ms", "negative"});
    row("log-cap negative", {"--log-cap", "-1"}, {"--log-cap", "negative"});
    row("log-cap exponent", {"--log-cap", "1e4"}, {"--log-cap", "fractional"});
    row("fetch-workers zero", {"--fetch-workers", "0"}, {"--fetch-workers", "1 to 32"});
    row("fetch-workers overflow", {"--fetch-workers", "4294967297"}, {"--fetch-workers"});
    row("logs-per-call negative", {"--logs-per-call", "-1"}, {"--logs-per-call", "negative"});
    row("logs-per-call too big", {"--logs-per-call", "1000001"},
        {"--logs-per-call", "0 to 1000000"});
    row("webhook-timeout-ms too small", {"--webhook-timeout-ms", "9"}, {"--webhook-timeout-ms"});
    row("metrics-port zero", {"--metrics-port", "0"}, {"--metrics-port", "1 to 65535"});
    row("metrics-port too big", {"--metrics-port", "65536"}, {"--metrics-port", "1 to 65535"});
    row("metrics-port wraps", {"--metrics-port", "65537"}, {"--metrics-port", "1 to 65535"});
    row("lag-threshold negative", {"--lag-threshold", "-2"}, {"--lag-threshold", "negative"});
    row("lag-threshold nan", {"--lag-threshold", "nan"}, {"--lag-threshold"});
    row("check-interval-ms too small", {"--check-interval-ms", "19"}, {"--check-interval-ms"});
    row("check-interval-ms inf", {"--check-interval-ms", "inf"}, {"--check-interval-ms"});
    row("rpc twice", {"--rpc", "http://127.0.0.1:2", "--rpc", "http://127.0.0.1:3"},
        {"--rpc given 2 times"});
    row("rpc port 0", {"--rpc", "http://127.0.0.1:0/"}, {"--rpc", "port 0"});
    row("node port 0", {"--node", "http://127.0.0.1:0"}, {"--node", "port 0"});
    row("webhook port 0", {"--webhook", "http://127.0.0.1:0/hook"}, {"--webhook", "port 0"});
    row("env twice", {"--env", "a", "--env", "b"}, {"--env given 2 times"});
    row("config twice", {"--config", "/nonexistent/a.json", "--config", "/nonexistent/b.json"},
        {"--config given 2 times"});
    row("empty db", {"--db", ""}, {"--db", "database file path"});
    row("empty abi", {"--abi", ""}, {"--abi", "file path"});
    row("empty outbox file", {"--outbox-file", ""}, {"--outbox-file", "file path"});
    row("empty source", {"--source", ""}, {"--source", "non-empty"});
    // clang-format on
}

void TestCli::indexRefusesBadValues()
{
    QFETCH(QStringList, extra);
    QFETCH(QStringList, mentions);
    QTemporaryDir dir;
    const QString db = dir.filePath("x.sqlite");
    // A valid command line, less the flags the row gives itself.
    QStringList args{"index"};
    for (const auto& [flag, value] : {std::pair<QString, QString>{"--rpc", "http://127.0.0.1:1"},
                                      {"--db", db},
                                      {"--env", "e"},
                                      {"--contract", kContract}})
        if (!extra.contains(flag))
            args << flag << value;
    const Run r = runForkscope(args + extra);
    verifyUsageError(r, mentions);
    QVERIFY(!QFile::exists(db));
}

void TestCli::indexConfigRefusesWrongTypes_data()
{
    // One key of an otherwise valid --config replaced; the line names the key and the file.
    // clang-format off
    QTest::addColumn<QString>("key");
    QTest::addColumn<QByteArray>("value"); // JSON
    QTest::addColumn<QString>("mentions");
    QTest::newRow("contracts a string") << "contracts" << QByteArray("\"0x5fbdb2315678afecb367f032d93f642f64180aa3\"") << "must be a non-empty JSON array of strings, got the string";
    QTest::newRow("contracts empty") << "contracts" << QByteArray("[]") << "non-empty JSON array";
    QTest::newRow("contracts of numbers") << "contracts" << QByteArray("[5]") << "got an item that is the number 5";
    QTest::newRow("contracts bad address") << "contracts" << QByteArray("[\"0x1234\"]") << "0x1234";
    QTest::newRow("contracts an object") << "contracts" << QByteArray("{}") << "got an object";
    QTest::newRow("nodes a string") << "nodes" << QByteArray("\"http://127.0.0.1:1\"") << "array";
    QTest::newRow("nodes not urls") << "nodes" << QByteArray("[\"ftp://x\"]") << "http(s) URL";
    QTest::newRow("fromBlock a string") << "fromBlock" << QByteArray("\"5\"") << "must be a whole JSON number, got the string \"5\"";
    QTest::newRow("fromBlock negative") << "fromBlock" << QByteArray("-1") << "negative";
    QTest::newRow("fromBlock fraction") << "fromBlock" << QByteArray("1.5") << "fractional";
    QTest::newRow("fromBlock true") << "fromBlock" << QByteArray("true") << "got true";
    QTest::newRow("fromBlock null") << "fromBlock" << QByteArray("null") << "got null";
    QTest::newRow("fromBlock int64 max") << "fromBlock" << QByteArray("9223372036854775807") << "2^62";
    QTest::newRow("fromBlock 1e20") << "fromBlock" << QByteArray("1e20") << "63 bits";
    QTest::newRow("fromBlock an array") << "fromBlock" << QByteArray("[5]") << "got an array";
    QTest::newRow("confirmations a string") << "confirmations" << QByteArray("\"3\"") << "whole JSON number";
    QTest::newRow("maxReorgDepth fraction") << "maxReorgDepth" << QByteArray("6.5") << "fractional";
    QTest::newRow("batchSize zero") << "batchSize" << QByteArray("0") << "1 to 10000";
    QTest::newRow("batchSize false") << "batchSize" << QByteArray("false") << "got false";
    QTest::newRow("pollMs negative") << "pollMs" << QByteArray("-100") << "negative";
    QTest::newRow("logCap a string") << "logCap" << QByteArray("\"10000\"") << "whole JSON number";
    QTest::newRow("fetchWorkers 64") << "fetchWorkers" << QByteArray("64") << "1 to 32";
    QTest::newRow("logsPerCall a fraction") << "logsPerCall" << QByteArray("100.5") << "fractional";
    QTest::newRow("webhookTimeoutMs fraction") << "webhookTimeoutMs" << QByteArray("5000.5") << "fractional";
    QTest::newRow("metricsPort 70000") << "metricsPort" << QByteArray("70000") << "1 to 65535";
    QTest::newRow("metricsPort a string") << "metricsPort" << QByteArray("\"9100\"") << "whole JSON number";
    QTest::newRow("readyRatio a string") << "readyRatio" << QByteArray("\"0.5\"") << "must be a JSON number";
    QTest::newRow("readyRatio 2") << "readyRatio" << QByteArray("2") << "at most 1";
    QTest::newRow("readyRatio negative") << "readyRatio" << QByteArray("-0.5") << "above 0";
    QTest::newRow("lagThreshold true") << "lagThreshold" << QByteArray("true") << "got true";
    QTest::newRow("checkIntervalMs 5") << "checkIntervalMs" << QByteArray("5") << "20 to 3600000";
    QTest::newRow("exitWhenSynced a string") << "exitWhenSynced" << QByteArray("\"yes\"") << "must be true or false";
    QTest::newRow("exitWhenSynced 1") << "exitWhenSynced" << QByteArray("1") << "must be true or false";
    QTest::newRow("rpc a number") << "rpc" << QByteArray("8545") << "must be a JSON string, got the number 8545";
    QTest::newRow("rpc an array") << "rpc" << QByteArray("[\"http://127.0.0.1:1\"]") << "must be a JSON string, got an array";
    QTest::newRow("rpc not a url") << "rpc" << QByteArray("\"localhost:8545\"") << "http(s) URL";
    QTest::newRow("env a number") << "env" << QByteArray("7") << "must be a JSON string";
    QTest::newRow("env empty") << "env" << QByteArray("\"  \"") << "non-empty";
    QTest::newRow("db empty") << "db" << QByteArray("\"\"") << "database file path";
    QTest::newRow("db null") << "db" << QByteArray("null") << "must be a JSON string, got null";
    QTest::newRow("source a bool") << "source" << QByteArray("false") << "must be a JSON string";
    QTest::newRow("abi an object") << "abi" << QByteArray("{\"abi\": []}") << "must be a JSON string";
    QTest::newRow("outboxFile empty") << "outboxFile" << QByteArray("\"\"") << "file path";
    QTest::newRow("webhook a number") << "webhook" << QByteArray("1") << "must be a JSON string";
    QTest::newRow("unknown key") << "fromblock" << QByteArray("5") << "unknown key";
    // The file's text is quoted escaped: the error stays one line.
    QTest::newRow("unknown key breaking the line") << "x\nforkscope: synced" << QByteArray("5") << "unknown key \"x\\nforkscope: synced\"";
    QTest::newRow("contracts with a terminal escape") << "contracts" << QByteArray("[\"0x\\u001b[2J\"]") << "got \"0x\\u001b[2J\"";
    // clang-format on
}

void TestCli::indexConfigRefusesWrongTypes()
{
    QFETCH(QString, key);
    QFETCH(QByteArray, value);
    QFETCH(QString, mentions);
    QTemporaryDir dir;
    const QString db = dir.filePath("x.sqlite");
    QJsonObject config{{"rpc", "http://127.0.0.1:1"},
                       {"db", db},
                       {"env", "e"},
                       {"contracts", QJsonArray{kContract}}};
    QJsonParseError pe{};
    const QJsonDocument v = QJsonDocument::fromJson("[" + value + "]", &pe);
    QCOMPARE(pe.error, QJsonParseError::NoError);
    config.insert(key, v.array().first());
    const QString path = dir.filePath("index config.json"); // a space: named as given
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(config).toJson());
    f.close();
    const Run r = runForkscope({"index", "--config", path});
    // A key that would break the line is named escaped.
    const QString shownKey = QString(key).replace('\n', "\\n");
    verifyUsageError(r, {"--config " + path, QStringLiteral("\"%1\"").arg(shownKey), mentions});
    QVERIFY(!QFile::exists(db));
}

void TestCli::indexConfigWithEveryKeyRuns()
{
    // Every key with the type it takes: the checks above refuse only what is wrong.
    test::IndexerLab lab;
    lab.deployToken("CFG");
    lab.sprayAll(2, 2, 3);
    QTemporaryDir dir;
    const QJsonObject config{
        {"rpc", lab.devnet().url().toString()},
        {"db", lab.dbPath()},
        {"env", "from-config"},
        {"source", "cfg"},
        {"contracts", QJsonArray{lab.tokens().first().address().toHex()}},
        {"fromBlock", 0},
        {"confirmations", 1},
        {"maxReorgDepth", 32},
        {"batchSize", 50},
        {"pollMs", 100},
        {"logCap", 10000},
        {"fetchWorkers", 2},
        {"logsPerCall", 500},
        {"outboxFile", dir.filePath("out.jsonl")},
        {"webhookTimeoutMs", 1000},
        {"abi", QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json")},
        {"metricsPort", int(lab::Devnet::findFreePort())},
        {"nodes", QJsonArray{lab.devnet().url().toString()}},
        {"readyRatio", 0.5},
        {"lagThreshold", 3},
        {"checkIntervalMs", 200},
        {"exitWhenSynced", true},
    };
    const QString path = dir.filePath("all.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(config).toJson());
    f.close();
    const test::ProcessRun run = test::runForkscope({"index", "--config", path});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains("synced: checkpoint"), qPrintable(run.describe()));
    QCOMPARE(lab.count("SELECT count(*) FROM indexer_checkpoints WHERE environment_id = "
                       "'from-config' AND source_id = 'cfg' AND policy_version = "
                       "'follow-head/confirmations=1'"),
             1);
}

void TestCli::indexStartBlockAboveTheHead()
{
    test::IndexerLab lab;
    lab.deployToken("WAIT");
    const quint64 head = lab.eth().blockNumber();
    const QString start = QString::number(head + 40);

    // --exit-when-synced: nothing indexed and nothing to index yet is not "synced"; exit 1
    // with one line instead of "synced: checkpoint 0".
    const test::ProcessRun once =
        lab.runIndex("env", {"--exit-when-synced", "--from-block", start});
    VERIFY_ONE_ERROR_LINE(
        once, 1,
        (QStringList{"--from-block " + start, QStringLiteral("head %1").arg(head), "not synced"}));
    QVERIFY2(!once.out.contains("synced"), qPrintable(once.out));
    QCOMPARE(lab.count("SELECT count(*) FROM indexer_checkpoints"), 0);

    // Following the head: it says it waits, and starts at the start block once it exists.
    QProcess p;
    p.start(QStringLiteral(FORKSCOPE_BINARY),
            lab.indexArgs("env", {"--from-block", start, "--poll-ms", "50"}));
    QString seen;
    const auto waiting = waitForLine(
        p, QProcess::StandardOutput,
        QRegularExpression(QStringLiteral("^state: waiting for the start block: the node's head "
                                          "%1 is below block %2, where indexing starts")
                               .arg(head)
                               .arg(start)),
        30000, &seen);
    QVERIFY2(waiting.hasMatch(), qPrintable(seen + p.readAllStandardError()));
    // The once-a-second progress line: nothing to do is a lag of 0, and not "synced".
    const auto progress = waitForLine(
        p, QProcess::StandardOutput,
        QRegularExpression(
            QStringLiteral("^head %1 checkpoint none lag 0 \\| .* \\| (.*)$").arg(head)),
        30000, &seen);
    QVERIFY2(progress.hasMatch(), qPrintable(seen));
    QCOMPARE(progress.captured(1).trimmed(), QStringLiteral("waiting for the start block"));
    QVERIFY2(!seen.contains("synced"), qPrintable(seen));
    lab.mine(45);
    QTRY_VERIFY_WITH_TIMEOUT(
        lab.count("SELECT count(*) FROM indexer_checkpoints WHERE block_number >= " + start) == 1,
        30000);
    ::kill(pid_t(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(15000));
    QCOMPARE(p.exitCode(), 0);
    seen += QString::fromUtf8(p.readAllStandardOutput());
    // Nothing below the start block stored.
    QCOMPARE(lab.count("SELECT min(block_number) FROM blocks"), qint64(head + 40));
    QVERIFY2(p.readAllStandardError().isEmpty(), qPrintable(seen));
}

void TestCli::devnetRunsUntilInterrupted()
{
    QProcess p;
    p.start(QStringLiteral(FORKSCOPE_BINARY), {"devnet"});
    QString seen;
    const auto m =
        waitForLine(p, QProcess::StandardOutput,
                    QRegularExpression("^anvil (\\S+) chain 31337 pid (\\d+)"), 30000, &seen);
    QVERIFY2(m.hasMatch(), qPrintable(seen + p.readAllStandardError()));
    const QUrl url(m.captured(1));
    const qint64 anvilPid = m.captured(2).toLongLong();
    {
        rpc::JsonRpcClient client(url);
        QCOMPARE(rpc::EthClient(client).chainId(), 31337u);
    }
    ::kill(pid_t(p.processId()), SIGINT);
    QVERIFY(p.waitForFinished(15000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    QTRY_VERIFY(!processAlive(anvilPid));
}

void TestCli::guiStartsOffscreenAndQuitsCleanly()
{
#if !FORKSCOPE_HAS_GUI
    QSKIP("headless build: usageErrors checks that the app is refused");
#endif
    QTemporaryDir dir;
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CONFIG_HOME", dir.path()); // no saved settings of the user's leak in
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(FORKSCOPE_BINARY), {"--db", dir.filePath("gui.sqlite")});
    QString seen;
    const auto started =
        waitForLine(p, QProcess::StandardError,
                    QRegularExpression("managed anvil started at (\\S+)"), 30000, &seen);
    QVERIFY2(started.hasMatch(), qPrintable(seen));
    const QUrl url(started.captured(1));
    const auto connected =
        waitForLine(p, QProcess::StandardError,
                    QRegularExpression("connected to \\S+, chain id 31337"), 30000, &seen);
    QVERIFY2(connected.hasMatch(), qPrintable(seen));
    ::kill(pid_t(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(15000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(QFile::exists(dir.filePath("gui.sqlite")));
    // The managed anvil stopped with the app.
    QTcpSocket probe;
    probe.connectToHost(QHostAddress::LocalHost, quint16(url.port()));
    QVERIFY(!probe.waitForConnected(500));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
