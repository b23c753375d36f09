// The forkscope executable as a user runs it: help, version, usage errors, the devnet
// subcommand, and the desktop app starting offscreen and quitting cleanly on SIGTERM.
#include "rpc/EthClient.h"

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
    void usageErrors_data();
    void usageErrors();
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
    const Run d = runForkscope({"devnet", "--help"});
    QCOMPARE(d.code, 0);
    QVERIFY(d.out.contains("--port"));
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
    QTest::newRow("devnet bad port") << QStringList{"devnet", "--port", "70000"} << "--port";
    QTest::newRow("devnet negative port") << QStringList{"devnet", "--port", "-1"} << "--port";
    QTest::newRow("app bad rpc") << QStringList{"--rpc", "http:8545"} << "--rpc: \"http:8545\" is not an http(s) URL";
    QTest::newRow("app bad env") << QStringList{"--env", "a b"} << "--env: environment \"a b\"";
    QTest::newRow("devnet unknown option") << QStringList{"devnet", "--bogus"} << "bogus";
    // clang-format on
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
