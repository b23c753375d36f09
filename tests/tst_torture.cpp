// A bounded torture run (a couple of minutes): kill -9 at random instants of a sync, random
// reorgs and rollbacks of depth 1-64 while following the head behind a flapping fault
// proxy, and a lying node for each lie the proxy knows, all while another process hammers
// the database with reads. Judged by tests/torture/check_db.py, an independent checker
// (Python, the contract's read surface only, its own balance sums) against the node. One
// indexer process at a time, on both stores: the backend is a data row (a SQLite file, or a
// database of its own on the suite's throwaway PostgreSQL cluster). Several processes on one
// PostgreSQL index are tst_sharedtorture's.
//
// Seeded: the seed is printed first; FORKSCOPE_TORTURE_SEED=<seed> replays a failing run.
#include "IndexerLab.h"
#include "RawHttpClient.h"
#include "StoreRows.h"
#include "TortureSeed.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"
#include "lab/ReorgInjector.h"

#include <QDir>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QtTest>
#include <algorithm>
#include <csignal>
#include <unistd.h>

using namespace forkscope;
using test::IndexerLab;
using test::ProcessRun;
using test::tortureSeed;

namespace {

const QString kChecker = QStringLiteral(FORKSCOPE_SOURCE_DIR "/tests/torture/check_db.py");
// Debian's interpreter, whose modules packaging/bootstrap.sh installs (python3-psycopg2): a
// python3 earlier on PATH (pyenv's, a virtualenv's) has not got them.
const QString kPython = QStringLiteral("/usr/bin/python3");

// The independent checker's verdict on `env` (its whole output on failure).
void runChecker(IndexerLab& lab, const QString& env)
{
    QStringList args{kChecker,
                     QStringLiteral("check"),
                     QStringLiteral("--db"),
                     lab.db(),
                     QStringLiteral("--env"),
                     env,
                     QStringLiteral("--rpc"),
                     lab.devnet().url().toString()};
    for (const auto& c : lab.contracts())
        args << QStringLiteral("--contract") << c.toHex();
    QProcess p;
    p.start(kPython, args);
    QVERIFY2(p.waitForFinished(300000), "check_db.py did not finish");
    const QString out = QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError());
    qInfo().noquote() << out.trimmed();
    QVERIFY2(p.exitCode() == 0, qPrintable(out));
}

// Another process reading the database the whole time, checking each snapshot.
class Reader
{
public:
    Reader(IndexerLab& lab, const QString& env) : m_stop(lab.tempPath(QStringLiteral("stop")))
    {
        QFile::remove(m_stop);
        m_process.start(kPython,
                        {kChecker, QStringLiteral("watch"), QStringLiteral("--db"), lab.db(),
                         QStringLiteral("--env"), env, QStringLiteral("--stop-file"), m_stop});
        m_process.waitForStarted();
    }
    void finish()
    {
        QFile f(m_stop);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QVERIFY(m_process.waitForFinished(60000));
        const QString out =
            QString::fromUtf8(m_process.readAllStandardOutput() + m_process.readAllStandardError());
        qInfo().noquote() << out.trimmed();
        QVERIFY2(m_process.exitCode() == 0, qPrintable(out));
        QVERIFY2(!out.contains(QLatin1String("took 0 snapshots")), qPrintable(out));
    }

private:
    QString m_stop;
    QProcess m_process;
};

qint64 checkpointOf(const IndexerLab& lab, const QString& env)
{
    return lab.checkpointOf(env);
}

} // namespace

class TestTorture : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void killsAtRandomInstantsOfASync_data() { test::StoreRows::backendRows(); }
    void killsAtRandomInstantsOfASync();
    void reorgsAndRollbacksWhileFollowingAFlappingNode_data() { test::StoreRows::backendRows(); }
    void reorgsAndRollbacksWhileFollowingAFlappingNode();
    void aLyingNodeForEachLie_data() { test::StoreRows::backendRows(); }
    void aLyingNodeForEachLie();
    void silentCapsInEveryFetchMode_data() { test::StoreRows::backendRows(); }
    void silentCapsInEveryFetchMode();
    void identityChangesMidRun_data() { test::StoreRows::backendRows(); }
    void identityChangesMidRun();
    void aCarelessOperator();
    void tampersAreFoundAndRepaired_data() { test::StoreRows::backendRows(); }
    void tampersAreFoundAndRepaired();

private:
    test::StoreRows m_stores;
};

void TestTorture::initTestCase()
{
    qInfo("torture seed %u (replay: FORKSCOPE_TORTURE_SEED=%u %s)", tortureSeed(), tortureSeed(),
          qPrintable(QCoreApplication::applicationFilePath()));
    m_stores.startCluster();
}

void TestTorture::killsAtRandomInstantsOfASync()
{
    QRandomGenerator rng(tortureSeed());
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(250, 8, 40); // 500 blocks behind: the first runs die mid-backfill
    Reader reader(lab, "env");
    int progressed = 0;
    for (int kill = 0; kill < 35; ++kill) {
        lab.sprayAll(int(rng.bounded(2, 12)), 8, 40); // always new blocks to commit
        const qint64 before = checkpointOf(lab, "env");
        QProcess p;
        p.start(
            QStringLiteral(FORKSCOPE_BINARY),
            lab.indexArgs("env", {"--batch-size", QString::number(2 + rng.bounded(30)), "--poll-ms",
                                  "20", "--fetch-workers", QString::number(1 + rng.bounded(4))}));
        QVERIFY(p.waitForStarted());
        // Up to most of a second: a run on PostgreSQL takes longer to start committing.
        QTest::qWait(int(rng.bounded(20, 900)));
        QVERIFY2(p.state() == QProcess::Running, qPrintable(p.readAllStandardError()));
        ::kill(pid_t(p.processId()), SIGKILL);
        p.waitForFinished(10000);
        if (checkpointOf(lab, "env") != before)
            ++progressed;
    }
    qInfo("35 kill -9s, %d of them after the run had committed something", progressed);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    reader.finish();
    runChecker(lab, "env");
}

void TestTorture::reorgsAndRollbacksWhileFollowingAFlappingNode()
{
    QRandomGenerator rng(tortureSeed() ^ 0x5eed);
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(80, 4, 20); // taller than the deepest reorg
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setSeed(tortureSeed());
    Reader reader(lab, "env");
    QProcess follower;
    follower.setProcessChannelMode(QProcess::MergedChannels);
    follower.start(
        QStringLiteral(FORKSCOPE_BINARY),
        // Each injected reorg is 1-64 deep, but several can land between two rounds of the
        // indexer and compound past 64 (a rollback of 40, then a reorg of 30 below the new
        // head): the limit itself is tested in tst_indexer.
        lab.indexArgs("env",
                      {"--poll-ms", "50", "--rpc-timeout-ms", "2000", "--max-reorg-depth", "1000"},
                      proxy.url()));
    QVERIFY(follower.waitForStarted());
    // Following first: on a busy machine a follower still starting would see only the
    // chain the storm left behind, and none of its reorgs.
    QVERIFY2(QTest::qWaitFor([&] { return lab.checkpointOnTheNodesHead("env"); }, 60000),
             qPrintable(QString::fromUtf8(follower.readAll()).right(6000)));
    int reorgs = 0, rollbacks = 0;
    for (int op = 0; op < 40; ++op) {
        // The node flaps: errors, lag, short outages.
        proxy.setErrorRate(rng.bounded(4) == 0 ? 0.2 : 0.0);
        proxy.setLagBlocks(rng.bounded(3) == 0 ? rng.bounded(4) : 0);
        proxy.setOffline(rng.bounded(10) == 0);
        // Depth 1-64: keep the chain taller than that.
        if (const auto height = lab.eth().blockNumber(); height < 70)
            lab.sprayAll(int(75 - height), 3, 20);
        const int depth = 1 + int(rng.bounded(64));
        if (rng.bounded(2) == 0) {
            const auto modes = {lab::ReorgTxMode::Keep, lab::ReorgTxMode::Drop};
            lab::ReorgInjector::inject(lab.rpc(), depth,
                                       *(modes.begin() + rng.bounded(int(modes.size()))));
            ++reorgs;
        } else {
            lab::ReorgInjector::rollback(lab.rpc(), depth);
            ++rollbacks;
            if (rng.bounded(2) == 0)
                lab.sprayAll(1 + int(rng.bounded(3)), 3, 20); // sometimes nothing new for a while
        }
        if (rng.bounded(3) == 0)
            lab.sprayAll(1 + int(rng.bounded(4)), 3, 20);
        QTest::qWait(int(rng.bounded(20, 250)));
        QVERIFY2(follower.state() == QProcess::Running,
                 qPrintable(QStringLiteral("the follower exited with %1 after op %2:\n%3")
                                .arg(follower.exitCode())
                                .arg(op)
                                .arg(QString::fromUtf8(follower.readAll()).right(6000))));
    }
    qInfo("%d reorgs and %d rollbacks injected", reorgs, rollbacks);
    proxy.setErrorRate(0);
    proxy.setLagBlocks(0);
    proxy.setOffline(false);
    lab.sprayAll(2, 3, 20);
    const bool caughtUp =
        QTest::qWaitFor([&] { return lab.checkpointOnTheNodesHead("env"); }, 60000);
    QVERIFY2(caughtUp, qPrintable(QStringLiteral("checkpoint %1, head %2; the follower said:\n%3")
                                      .arg(checkpointOf(lab, "env"))
                                      .arg(lab.eth().blockNumber())
                                      .arg(QString::fromUtf8(follower.readAll()).right(6000))));
    ::kill(pid_t(follower.processId()), SIGINT);
    const ProcessRun run = test::waitForProcess(follower, 20000);
    VERIFY_EXIT_OK(run);
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events WHERE depth <= 0"), 0);
    const qint64 rolledBack = lab.count("SELECT count(*) FROM reorg_events");
    qInfo("the indexer rolled back %lld times", rolledBack);
    QVERIFY2(rolledBack >= 10, "the run injected reorgs the indexer never saw");
    reader.finish();
    runChecker(lab, "env");
}

void TestTorture::aLyingNodeForEachLie()
{
    QRandomGenerator rng(tortureSeed() ^ 0x11e5);
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(5, 3, 10);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    Reader reader(lab, "env");
    QProcess follower;
    follower.setProcessChannelMode(QProcess::MergedChannels);
    follower.start(
        QStringLiteral(FORKSCOPE_BINARY),
        lab.indexArgs("env", {"--poll-ms", "50", "--rpc-timeout-ms", "800", "--max-reply-mb", "1"},
                      proxy.url()));
    QVERIFY(follower.waitForStarted());
    const QList<QJsonObject> lies{
        {{"lie", "foreign-log"}},
        {{"lie", "out-of-range-log"}},
        {{"lie", "wrong-log-hash"}},
        {{"lie", "unlinked-headers"}},
        {{"lie", "shifted-header"}},
        {{"trickleBps", 2}},
        {{"padReplyBytes", 2 * 1024 * 1024}},
    };
    const QJsonObject honest{{"lie", "none"}, {"trickleBps", 0}, {"padReplyBytes", 0}};
    // Each lie once, in the order listed, new blocks coming in under it.
    for (const QJsonObject& lie : lies) {
        QCOMPARE(proxy.applyKnobs(lie), QString());
        lab.sprayAll(1 + int(rng.bounded(3)), 3, 10);
        QTest::qWait(int(rng.bounded(600, 1500)));
        QCOMPARE(proxy.applyKnobs(honest), QString());
        QTRY_COMPARE_WITH_TIMEOUT(checkpointOf(lab, "env"), qint64(lab.eth().blockNumber()), 30000);
        // (Read, not consumed: QVERIFY2 builds its message even when it passes, and
        // the last check reads everything the follower said.)
        QVERIFY2(follower.state() == QProcess::Running,
                 qPrintable(QString::fromUtf8(follower.peek(1 << 24)).right(3000)));
    }
    ::kill(pid_t(follower.processId()), SIGINT);
    const ProcessRun run = test::waitForProcess(follower, 20000);
    VERIFY_EXIT_OK(run);
    QVERIFY2(!run.out.contains("REORG"), qPrintable(run.out.right(3000)));
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);
    reader.finish();
    runChecker(lab, "env");
}

void TestTorture::silentCapsInEveryFetchMode()
{
    // A provider that silently cuts every eth_getLogs reply, on blocks whose blooms cannot
    // show what is missing (many logs, 6 holders): each run indexes everything (the node
    // serves receipts) or stops before the first block it cannot prove, never past it.
    QRandomGenerator rng(tortureSeed() ^ 0xca95);
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    for (int i = 0; i < 6; ++i) {
        lab.sprayAll(1 + int(rng.bounded(3)), 1 + int(rng.bounded(93)), 6);
        lab.mine(int(rng.bounded(30)));
    }
    const QList<QStringList> modes{{},
                                   {"--logs-per-call", "0"},
                                   {"--batch-size", "7", "--fetch-workers", "4"},
                                   {"--batch-size", QString::number(1 + rng.bounded(40))}};
    for (int run = 0; run < 2; ++run) {
        const quint64 cap = QList<quint64>{7, 50, 135}.at(int(rng.bounded(3)));
        const QStringList mode = modes.at(int(rng.bounded(int(modes.size()))));
        const bool receipts = rng.bounded(2) == 0;
        const QString env = QStringLiteral("cap%1").arg(run);
        qInfo("run %d: cap %llu, flags [%s], receipts %s", run, cap, qPrintable(mode.join(' ')),
              receipts ? "served" : "refused");
        lab::FaultProxy proxy(lab.devnet().url());
        proxy.listen();
        proxy.setLogCap(cap, lab::FaultProxy::CapMode::Silent);
        proxy.setNoReceipts(!receipts);
        const ProcessRun r =
            lab.runIndex(env, QStringList{"--exit-when-synced"} + mode, proxy.url());
        QVERIFY2(r.finished && (r.exitCode == 0 || r.exitCode == 1), qPrintable(r.describe()));
        if (receipts)
            VERIFY_EXIT_OK(r);
        if (checkpointOf(lab, env) >= 0)
            runChecker(lab, env);
    }
}

void TestTorture::identityChangesMidRun()
{
    // The node says it is another chain (chain id or genesis) while serving the same blocks:
    // the follower stops, and nothing mined after the change is committed.
    QRandomGenerator rng(tortureSeed() ^ 0x1d);
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(5, 3, 10);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    QProcess follower;
    follower.setProcessChannelMode(QProcess::MergedChannels);
    follower.start(QStringLiteral(FORKSCOPE_BINARY),
                   lab.indexArgs("env", {"--poll-ms", "50"}, proxy.url()));
    QVERIFY(follower.waitForStarted());
    // Mid-run: after a first commit (a change before any is the start-up check's case).
    QTRY_VERIFY_WITH_TIMEOUT(checkpointOf(lab, "env") >= 0, 30000);
    for (int i = 0, n = int(rng.bounded(1, 6)); i < n; ++i) {
        lab.sprayAll(1, 3, 10);
        QTest::qWait(int(rng.bounded(20, 300)));
    }
    const QString lie = rng.bounded(2) == 0 ? "other-chain-id" : "other-genesis";
    qInfo("lie: %s", qPrintable(lie));
    QCOMPARE(proxy.applyKnobs({{"lie", lie}}), QString());
    const qint64 headAtChange = qint64(lab.eth().blockNumber());
    for (int i = 0, n = int(rng.bounded(1, 6)); i < n; ++i) {
        lab.sprayAll(1, 3, 10);
        QTest::qWait(int(rng.bounded(20, 300)));
    }
    const ProcessRun run = test::waitForProcess(follower, 60000);
    QVERIFY2(run.finished && run.exitCode == 1 && run.out.contains("the chain was reset"),
             qPrintable(run.describe() + QStringLiteral("\nthe node's head: %1, at the change %2")
                                             .arg(lab.eth().blockNumber())
                                             .arg(headAtChange)));
    QVERIFY(checkpointOf(lab, "env") <= headAtChange);
    runChecker(lab, "env");
}

namespace {

// `sqlite3 FILE SQL` (or `psql URL -c SQL`) as a user at a shell would run it: another
// process, the store's own CLI. Its output, a line a row, columns joined by '|' (empty on
// failure, which the caller's check then names).
QStringList sqliteCli(const QString& db, const QString& sql)
{
    const bool pg = db.startsWith(QLatin1String("postgresql://"));
    QProcess p;
    if (pg)
        p.start(QStringLiteral("psql"), {db, "-XAtq", "-v", "ON_ERROR_STOP=1", "-c", sql});
    else
        p.start(QStringLiteral("sqlite3"), {db, sql});
    if (!p.waitForFinished(30000) || p.exitCode() != 0) {
        qWarning("%s %s: %s", pg ? "psql" : "sqlite3", qPrintable(sql),
                 p.readAllStandardError().constData());
        return {};
    }
    return QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
}

// A binary literal of `hex` in the store's SQL.
QString blob(const QString& db, const QString& hex)
{
    return db.startsWith(QLatin1String("postgresql://")) ? "'\\x" + hex + "'::bytea"
                                                         : "X'" + hex + "'";
}

// Every client connects, then all send one call at once: each must get a JSON-RPC answer
// with its id, or a JSON-RPC "server busy" error with HTTP 503; never plain text.
void floodTheApi(quint16 port, int clients)
{
    std::vector<std::unique_ptr<QTcpSocket>> sockets;
    for (int i = 0; i < clients; ++i) {
        sockets.push_back(std::make_unique<QTcpSocket>());
        sockets.back()->connectToHost(QHostAddress::LocalHost, port);
    }
    QVERIFY(QTest::qWaitFor(
        [&] {
            for (const auto& s : sockets)
                if (s->state() != QAbstractSocket::ConnectedState)
                    return false;
            return true;
        },
        60000));
    for (int i = 0; i < clients; ++i) {
        const QByteArray body = QJsonDocument(QJsonObject{{"jsonrpc", "2.0"},
                                                          {"id", i},
                                                          {"method", "getLatestBlock"},
                                                          {"params", QJsonArray{}}})
                                    .toJson(QJsonDocument::Compact);
        sockets[std::size_t(i)]->write("POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                                       "Content-Length: " +
                                       QByteArray::number(body.size()) + "\r\n\r\n" + body);
    }
    int busy = 0;
    for (int i = 0; i < clients; ++i) {
        QByteArray buf;
        const test::RawReply r = test::readResponse(*sockets[std::size_t(i)], buf, 60000);
        QVERIFY2(r.status == 200 || r.status == 503, qPrintable(r.head));
        const QJsonObject o = QJsonDocument::fromJson(r.body).object();
        QVERIFY2(o.value("id").toInt(-1) == i, qPrintable(r.body));
        QVERIFY2(r.status == 200 ? o.contains("result")
                                 : o.value("error")["code"].toInt() == -32005,
                 qPrintable(r.body));
        busy += r.status == 503;
    }
    qInfo("%d clients: %d answered, %d told the server is busy", clients, clients - busy, busy);
}

} // namespace

void TestTorture::aCarelessOperator()
{
    // What an operator does to a running lab by hand: views and triggers dropped with
    // sqlite3, a flood of API clients, a node URL with port 0. Each is restored, answered or
    // refused in one line, and the data stays the node's.
    QRandomGenerator rng(tortureSeed() ^ 0x0fe7);
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(6, 4, 10);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    // Every tamper once, in an order and at rows the seed picks.
    QList<int> order{0, 1, 2, 3, 4, 5, 6};
    std::shuffle(order.begin(), order.end(), rng);
    for (int round = 0; round < order.size(); ++round) {
        const QStringList objects = sqliteCli(lab.dbPath(), "SELECT type || ' ' || name FROM "
                                                            "sqlite_master WHERE type IN "
                                                            "('view', 'trigger') ORDER BY name");
        QVERIFY(!objects.isEmpty());
        const QStringList picked = objects.at(int(rng.bounded(int(objects.size())))).split(' ');
        const QString type = picked.value(0), name = picked.value(1);
        qInfo("round %d: drop %s %s", round, qPrintable(type), qPrintable(name));
        sqliteCli(lab.dbPath(), QStringLiteral("DROP %1 %2").arg(type.toUpper(), name));
        const QString present =
            QStringLiteral("SELECT count(*) FROM sqlite_master WHERE name = '%1'").arg(name);
        QCOMPARE(sqliteCli(lab.dbPath(), present), QStringList{"0"});
        lab.sprayAll(1 + int(rng.bounded(3)), 4, 10);
        const ProcessRun run = lab.runIndex("env", {"--exit-when-synced"});
        VERIFY_EXIT_OK(run);
        QVERIFY2(run.err.contains("restored the contract's " + type + " " + name),
                 qPrintable(run.err));
        QCOMPARE(sqliteCli(lab.dbPath(), present), QStringList{"1"});
    }
    runChecker(lab, "env");

    // A flood of API clients while the indexer follows the head.
    const quint16 port = lab::Devnet::findFreePort();
    QProcess follower;
    follower.start(
        QStringLiteral(FORKSCOPE_BINARY),
        lab.indexArgs("env", {"--poll-ms", "50", "--metrics-port", QString::number(port)}));
    QVERIFY(follower.waitForStarted());
    QVERIFY(QTest::qWaitFor(
        [&] { return QString::fromUtf8(follower.peek(1 << 20)).contains("api: http://"); }, 30000));
    lab.sprayAll(2, 4, 10);
    floodTheApi(port, 150 + int(rng.bounded(100)));
    ::kill(pid_t(follower.processId()), SIGINT);
    VERIFY_EXIT_OK(test::waitForProcess(follower, 20000));

    // A copy of the file in a place the operator cannot write (root without
    // CAP_DAC_OVERRIDE, as tst_report does): the report reads it as it is.
    {
        const QString ro = lab.tempPath("read-only");
        QVERIFY(QDir().mkpath(ro));
        QVERIFY(QFile::copy(lab.dbPath(), ro + "/copy.sqlite"));
        QVERIFY(QFile::setPermissions(ro + "/copy.sqlite", QFileDevice::ReadOwner));
        QVERIFY(QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::ExeOwner));
        const auto writableAgain = qScopeGuard([&] {
            QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ExeOwner);
        });
        QString program = QStringLiteral(FORKSCOPE_BINARY);
        QStringList args;
        if (::geteuid() == 0) {
            args << "--inh-caps=-dac_override,-dac_read_search"
                 << "--bounding-set=-dac_override,-dac_read_search" << program;
            program = QStandardPaths::findExecutable("setpriv");
            QVERIFY2(!program.isEmpty(), "setpriv (util-linux) is needed to drop root's override");
        }
        const QString format = QStringList{"json", "csv"}.at(int(rng.bounded(2)));
        const QString out = lab.tempPath("careless." + format);
        QProcess p;
        p.start(program, args + QStringList{"report", "--db", ro + "/copy.sqlite", "--format",
                                            format, "--out", out, "--no-verify"});
        QVERIFY(p.waitForStarted());
        VERIFY_EXIT_OK(test::waitForProcess(p, 60000));
        QVERIFY(QFileInfo(out).size() > 0);
    }

    // A node URL naming port 0 is refused before anything is opened.
    const ProcessRun refused =
        lab.runIndex("env", {"--exit-when-synced"}, QUrl(QStringLiteral("http://127.0.0.1:0/")));
    VERIFY_ONE_ERROR_LINE(refused, 2, QStringList{"port 0"});
    runChecker(lab, "env");
}

void TestTorture::tampersAreFoundAndRepaired()
{
    // Rows edited by hand in the physical tables (a value, a party, a block's hash or
    // timestamp, a balance deleted or altered), with the store's own CLI: verify names each,
    // its advice repairs it, and verify is clean again, judged by the independent checker
    // too.
    QRandomGenerator rng(tortureSeed() ^ 0x7a3e);
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(8, 4, 12);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    const QString db = lab.db();
    const QString rpc = lab.devnet().url().toString();
    // Every tamper once, in an order and at rows the seed picks.
    QList<int> order{0, 1, 2, 3, 4, 5, 6};
    std::shuffle(order.begin(), order.end(), rng);
    for (int round = 0; round < order.size(); ++round) {
        const QStringList logs = sqliteCli(
            db, "SELECT block_number || ' ' || log_index FROM log_store WHERE environment_id = "
                "'env' AND transfer_value IS NOT NULL ORDER BY block_number, log_index");
        QVERIFY(!logs.isEmpty());
        const QStringList at = logs.at(int(rng.bounded(int(logs.size())))).split(' ');
        const QString log = QStringLiteral("WHERE environment_id = 'env' AND block_number = %1 AND "
                                           "log_index = %2")
                                .arg(at.value(0), at.value(1));
        const QString block =
            QStringLiteral("WHERE environment_id = 'env' AND block_number = %1").arg(at.value(0));
        const QString balance =
            QStringLiteral("WHERE (environment_id, contract, holder) IN (SELECT environment_id, "
                           "contract, holder FROM balance_store WHERE environment_id = 'env' "
                           "ORDER BY contract, holder LIMIT 1 OFFSET %1)")
                .arg(rng.bounded(10));
        const QList<QPair<const char*, QString>> tampers{
            {"value", "UPDATE log_store SET transfer_value = '12345' " + log},
            {"from",
             "UPDATE log_store SET topic1 = " + blob(db, QString(60, '0') + "dead") + ' ' + log},
            {"to",
             "UPDATE log_store SET topic2 = " + blob(db, QString(60, '0') + "beef") + ' ' + log},
            {"block hash",
             "UPDATE block_store SET block_hash = " + blob(db, QString(64, '1')) + ' ' + block},
            {"block timestamp",
             "UPDATE block_store SET block_timestamp = block_timestamp + 1 " + block},
            {"balance deleted", "DELETE FROM balance_store " + balance},
            {"balance altered", "UPDATE balance_store SET balance = '1' " + balance},
        };
        QCOMPARE(tampers.size(), order.size());
        const auto& [what, sql] = tampers.at(order.at(round));
        qInfo("round %d: %s (%s)", round, what, qPrintable(sql));
        sqliteCli(db, sql);
        const QStringList verify{"verify", "--db", db, "--env", "env", "--rpc", rpc};
        const ProcessRun found = test::runForkscope(verify);
        QVERIFY2(found.finished && found.exitCode == 1, qPrintable(found.describe()));
        QVERIFY2(found.out.contains("HOLE block ") || found.out.contains("BALANCE at checkpoint"),
                 qPrintable(found.out));
        const auto advice =
            QRegularExpression("verdict: .*`forkscope (repair [^`]+)`").match(found.out);
        QVERIFY2(advice.hasMatch(), qPrintable(found.out));
        const ProcessRun repaired = test::runForkscope(QProcess::splitCommand(advice.captured(1)));
        VERIFY_EXIT_OK(repaired);
        VERIFY_EXIT_OK(test::runForkscope(verify));
        runChecker(lab, "env");
    }
}

QTEST_GUILESS_MAIN(TestTorture)
#include "tst_torture.moc"
