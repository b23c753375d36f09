// A bounded torture run of a shared PostgreSQL index with several writers (tst_torture runs
// one process at a time on each store). One to three `forkscope index` processes on one
// environment, all killed with -9 at a random instant of the backfill or of following the
// head, behind a node failing some requests, with reorgs and rollbacks of depth 1-12 made
// between the kills; and two processes, one following and one standing by, through 40
// reorgs and rollbacks behind a flapping node. Each ends with
// the index at the node's head, judged against the node independently of the indexer's
// code: every log once, every balance the sum of the node's Transfers, `verify` clean.
//
// Seeded: the seed is printed first; FORKSCOPE_TORTURE_SEED=<seed> replays a failing run.
#include "BackendLab.h"
#include "TortureSeed.h"
#include "lab/FaultProxy.h"
#include "lab/ReorgInjector.h"

#include <QRandomGenerator>
#include <QtTest>
#include <boost/multiprecision/cpp_int.hpp>
#include <csignal>

using namespace forkscope;
using test::Backend;
using test::tortureSeed;

namespace {

// `forkscope index` processes on one environment, running until stopped, and everything
// each said (kept whole: QVERIFY2 builds its message even when it passes, so a message
// that read the pipes would hide earlier output from a later check).
class IndexProcesses
{
public:
    // False if one did not start.
    bool start(int n, const QStringList& args)
    {
        for (int i = 0; i < n; ++i) {
            auto& p = m_processes.emplace_back(std::make_unique<QProcess>());
            p->start(QStringLiteral(FORKSCOPE_BINARY), args);
            if (!p->waitForStarted())
                return false;
        }
        m_said.resize(m_processes.size());
        return true;
    }
    // The last 3,000 characters each said, for a failure message.
    QString tails()
    {
        QString out;
        for (std::size_t i = 0; i < m_processes.size(); ++i)
            out += said(i).right(3000) + QStringLiteral("\n---\n");
        return out;
    }
    // Empty while every process runs; else which one exited, with `when` and the tails.
    QString exited(const QString& when)
    {
        for (auto& p : m_processes)
            if (p->state() != QProcess::Running)
                return QStringLiteral("a process exited with %1 %2:\n%3")
                    .arg(p->exitCode())
                    .arg(when, tails());
        return {};
    }
    // Stops each with SIGINT; each run's `out` is everything that process said.
    std::vector<test::ProcessRun> stop()
    {
        std::vector<test::ProcessRun> runs;
        for (std::size_t i = 0; i < m_processes.size(); ++i) {
            said(i);
            ::kill(pid_t(m_processes[i]->processId()), SIGINT);
            test::ProcessRun run = test::waitForProcess(*m_processes[i], 20'000);
            run.out = m_said[i] + run.out;
            runs.push_back(run);
        }
        return runs;
    }

private:
    const QString& said(std::size_t i)
    {
        m_said[i] += QString::fromUtf8(m_processes[i]->readAllStandardOutput() +
                                       m_processes[i]->readAllStandardError());
        return m_said[i];
    }
    std::vector<std::unique_ptr<QProcess>> m_processes;
    std::vector<QString> m_said;
};

} // namespace

class TestSharedTorture : public QObject, public test::BackendLab
{
    Q_OBJECT
private slots:
    void initTestCase();
    void killsAtRandomInstantsWithReorgsBetween();
    void reorgsAndRollbacksWhileFollowingAFlappingNode();
    void aLyingNodeForEachLieWhileTwoProcessesFollow();

private:
    // token_balances of `env` are exactly what the node's Transfers up to its checkpoint
    // sum to.
    void expectBalancesAreTheNodes(store::ContractReader& r, const QString& env);
    // What the node's Transfer logs up to `upTo` sum to, per "contract holder" (the zero
    // address excepted), as decimal text: computed here, not by the indexer.
    QHash<QString, QString> balancesOnTheNode(std::uint64_t upTo);
};

void TestSharedTorture::initTestCase()
{
    qInfo("torture seed %u (replay: FORKSCOPE_TORTURE_SEED=%u %s)", tortureSeed(), tortureSeed(),
          qPrintable(QCoreApplication::applicationFilePath()));
    startLab();
}

QHash<QString, QString> TestSharedTorture::balancesOnTheNode(std::uint64_t upTo)
{
    using boost::multiprecision::cpp_int;
    static const QByteArray transferTopic =
        QByteArray::fromHex("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = upTo;
    f.addresses = m_lab->contracts();
    QHash<QString, cpp_int> sums;
    for (const auto& log : m_lab->eth().getLogs(f)) {
        if (log.topics.size() != 3 || log.topics[0].toByteArray() != transferTopic)
            continue;
        const cpp_int value("0x" + log.data.toHex().toStdString());
        const QString contract = log.address.toHex();
        const QString from = QStringLiteral("0x") + log.topics[1].toByteArray().right(20).toHex();
        const QString to = QStringLiteral("0x") + log.topics[2].toByteArray().right(20).toHex();
        const QString zero = QStringLiteral("0x") + QString(40, QLatin1Char('0'));
        if (from != zero)
            sums[contract + ' ' + from] -= value;
        if (to != zero)
            sums[contract + ' ' + to] += value;
    }
    QHash<QString, QString> out;
    for (auto it = sums.cbegin(); it != sums.cend(); ++it)
        out.insert(it.key(), QString::fromStdString(it.value().str()));
    return out;
}

void TestSharedTorture::killsAtRandomInstantsWithReorgsBetween()
{
    QRandomGenerator rng(tortureSeed());
    const QString db = m_cluster.url();
    const QString env = QStringLiteral("torture");
    m_lab->sprayAll(150, 8, 40); // a backfill for the first kills to interrupt
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setSeed(tortureSeed());
    int reorgs = 0, rollbacks = 0, processes = 0;
    for (int round = 0; round < 24; ++round) {
        m_lab->sprayAll(1 + int(rng.bounded(6)), 8, 40); // always new blocks to commit
        if (rng.bounded(3) == 0) {
            // Depth 1-12, the chain staying taller than that.
            const int depth = 1 + int(rng.bounded(12));
            if (rng.bounded(2) == 0) {
                lab::ReorgInjector::inject(m_lab->rpc(), depth, lab::ReorgTxMode::Drop);
                ++reorgs;
            } else {
                lab::ReorgInjector::rollback(m_lab->rpc(), depth);
                m_lab->sprayAll(1 + int(rng.bounded(3)), 8, 40); // another branch, taller
                ++rollbacks;
            }
        }
        proxy.setErrorRate(rng.bounded(4) == 0 ? 0.1 : 0.0);
        // A short lease: a killed process's range is taken over in the next round.
        std::vector<std::unique_ptr<QProcess>> running;
        const int n = 1 + int(rng.bounded(3));
        for (int i = 0; i < n; ++i) {
            QStringList args = indexArgs(db, env);
            args[2] = proxy.url().toString();               // --rpc
            args[8] = QString::number(2 + rng.bounded(20)); // --batch-size
            args << QStringLiteral("--poll-ms") << QStringLiteral("20")
                 << QStringLiteral("--lease-ms") << QStringLiteral("1000");
            auto& p = running.emplace_back(std::make_unique<QProcess>());
            p->setProcessChannelMode(QProcess::MergedChannels);
            p->start(QStringLiteral(FORKSCOPE_BINARY), args);
            QVERIFY(p->waitForStarted());
            ++processes;
        }
        QTest::qWait(int(rng.bounded(100, 1500)));
        for (auto& p : running) {
            QVERIFY2(p->state() == QProcess::Running,
                     qPrintable(QStringLiteral("round %1: a process exited with %2:\n%3")
                                    .arg(round)
                                    .arg(p->exitCode())
                                    .arg(QString::fromUtf8(p->readAll()).right(4000))));
            ::kill(pid_t(p->processId()), SIGKILL);
            p->waitForFinished(10'000);
        }
    }
    qInfo("%d processes killed with -9; %d reorgs and %d rollbacks made between the kills",
          processes, reorgs, rollbacks);

    // An honest node and one run to the head: the dead processes' leases run out on the way.
    // A rollback may have left ranges planned above the head: the plan is cut back to the
    // head, and nothing waits for blocks the chain lost.
    m_lab->sprayAll(2, 8, 40);
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    expectSyncedWithEveryLog(b, env);
    store::ContractReader& r = b.open();
    const auto count = [&](const QString& sql) { return r.scalar(sql, {env}); };
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = ? "
                                  "AND depth <= 0")),
             qint64(0));
    qInfo("the index recorded %lld rollbacks",
          count(QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = ?")));
    // One outbox row per Transfer, none twice (nothing delivered: no retractions).
    const qint64 transfers =
        count(QStringLiteral("SELECT count(*) FROM transfer_events WHERE environment_id = ?"));
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM outbox WHERE environment_id = ?")),
             transfers);
    QCOMPARE(count(QStringLiteral("SELECT count(DISTINCT event_key) FROM outbox WHERE "
                                  "environment_id = ?")),
             transfers);
    expectBalancesAreTheNodes(r, env);
    b.close();
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

// Two processes on one environment, one following the head and one standing by, behind a
// node that fails requests, lags and goes offline at random, through 40 reorgs and
// rollbacks of depth 1-24 (several may land between two rounds and compound, hence the
// large --max-reorg-depth: the limit itself is tst_backendscrash's). Then the node is
// honest again, the checkpoint reaches its head, and the index is judged as above.
void TestSharedTorture::reorgsAndRollbacksWhileFollowingAFlappingNode()
{
    QRandomGenerator rng(tortureSeed() ^ 0x5eed);
    const QString db = m_cluster.url();
    const QString env = QStringLiteral("torture-follow");
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setSeed(tortureSeed());
    QStringList args = indexArgs(db, env);
    args[2] = proxy.url().toString(); // --rpc
    args << QStringLiteral("--poll-ms") << QStringLiteral("50")
         << QStringLiteral("--rpc-timeout-ms") << QStringLiteral("2000")
         << QStringLiteral("--max-reorg-depth") << QStringLiteral("1000")
         << QStringLiteral("--lease-ms") << QStringLiteral("1000");
    IndexProcesses processes;
    QVERIFY(processes.start(2, args));
    Backend b(db);
    // The backfill first: what follows is about following the head.
    QVERIFY2(QTest::qWaitFor([&] { return onHead(b, env); }, 60'000), "the backfill did not end");
    int reorgs = 0, rollbacks = 0;
    for (int op = 0; op < 40; ++op) {
        proxy.setErrorRate(rng.bounded(4) == 0 ? 0.2 : 0.0);
        proxy.setLagBlocks(rng.bounded(3) == 0 ? rng.bounded(4) : 0);
        proxy.setOffline(rng.bounded(10) == 0);
        if (const auto height = m_lab->eth().blockNumber(); height < 40)
            m_lab->sprayAll(int(45 - height), 3, 20);
        const int depth = 1 + int(rng.bounded(24));
        if (rng.bounded(2) == 0) {
            const auto modes = {lab::ReorgTxMode::Keep, lab::ReorgTxMode::Drop};
            lab::ReorgInjector::inject(m_lab->rpc(), depth,
                                       *(modes.begin() + rng.bounded(int(modes.size()))));
            ++reorgs;
        } else {
            lab::ReorgInjector::rollback(m_lab->rpc(), depth);
            ++rollbacks;
            if (rng.bounded(2) == 0)
                m_lab->sprayAll(1 + int(rng.bounded(3)), 3, 20);
        }
        if (rng.bounded(3) == 0)
            m_lab->sprayAll(1 + int(rng.bounded(4)), 3, 20);
        QTest::qWait(int(rng.bounded(50, 400)));
        const QString exited = processes.exited(QStringLiteral("after op %1").arg(op));
        QVERIFY2(exited.isEmpty(), qPrintable(exited));
    }
    qInfo("%d reorgs and %d rollbacks injected", reorgs, rollbacks);
    proxy.setErrorRate(0);
    proxy.setLagBlocks(0);
    proxy.setOffline(false);
    m_lab->sprayAll(2, 3, 20);
    const bool caughtUp = QTest::qWaitFor([&] { return onHead(b, env); }, 60'000);
    QVERIFY2(caughtUp, qPrintable(processes.tails()));
    for (const test::ProcessRun& run : processes.stop())
        VERIFY_EXIT_OK(run);
    expectSyncedWithEveryLog(b, env);
    store::ContractReader& r = b.open();
    QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = ? "
                                     "AND depth <= 0"),
                      {env}),
             qint64(0));
    const qint64 rolledBack = r.scalar(
        QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = ?"), {env});
    qInfo("the index rolled back %lld times", rolledBack);
    QVERIFY2(rolledBack >= 5, "the run injected reorgs the follower never saw");
    expectBalancesAreTheNodes(r, env);
    b.close();
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

// tst_torture's lying node, on a shared index: two processes, one following and one
// standing by, behind a node that lies in each way the proxy knows (a foreign log, a log
// outside the range, a log under another block hash, headers that do not link, a reply
// trickled past the timeout, a reply over the size cap) for a second or so at a time, new
// blocks coming in meanwhile. A lie is never a reorg, never stored, and never stops a
// process: once the node is honest again the checkpoint reaches its head, and the index is
// judged as above.
void TestSharedTorture::aLyingNodeForEachLieWhileTwoProcessesFollow()
{
    QRandomGenerator rng(tortureSeed() ^ 0x11e5);
    const QString db = m_cluster.url();
    const QString env = QStringLiteral("torture-lies");
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    QStringList args = indexArgs(db, env);
    args[2] = proxy.url().toString(); // --rpc
    args << QStringLiteral("--poll-ms") << QStringLiteral("50")
         << QStringLiteral("--rpc-timeout-ms") << QStringLiteral("800")
         << QStringLiteral("--max-reply-mb") << QStringLiteral("1") << QStringLiteral("--lease-ms")
         << QStringLiteral("1000");
    const QList<QJsonObject> lies{
        {{"lie", "foreign-log"}},    {{"lie", "out-of-range-log"}},
        {{"lie", "wrong-log-hash"}}, {{"lie", "unlinked-headers"}},
        {{"trickleBps", 2}},         {{"padReplyBytes", 2 * 1024 * 1024}},
    };
    const QJsonObject honest{{"lie", "none"}, {"trickleBps", 0}, {"padReplyBytes", 0}};
    // The backfill starts under a lie too: its ranges meet it.
    QCOMPARE(proxy.applyKnobs(lies[int(rng.bounded(int(lies.size())))]), QString());
    IndexProcesses processes;
    QVERIFY(processes.start(2, args));
    QTest::qWait(int(rng.bounded(1000, 2500)));
    QCOMPARE(proxy.applyKnobs(honest), QString());
    Backend b(db);
    QVERIFY2(QTest::qWaitFor([&] { return onHead(b, env); }, 60'000),
             qPrintable(processes.tails()));
    for (int round = 0; round < 2; ++round) {
        for (const QJsonObject& lie : lies) {
            QCOMPARE(proxy.applyKnobs(lie), QString());
            m_lab->sprayAll(1 + int(rng.bounded(3)), 3, 10);
            QTest::qWait(int(rng.bounded(600, 1500)));
            QCOMPARE(proxy.applyKnobs(honest), QString());
            const QString what =
                QStringLiteral("round %1, %2")
                    .arg(round)
                    .arg(QString::fromUtf8(QJsonDocument(lie).toJson(QJsonDocument::Compact)));
            QVERIFY2(QTest::qWaitFor([&] { return onHead(b, env); }, 30'000),
                     qPrintable(what + QStringLiteral(": the checkpoint did not reach the head\n") +
                                processes.tails()));
            const QString exited = processes.exited(QStringLiteral("after ") + what);
            QVERIFY2(exited.isEmpty(), qPrintable(exited));
        }
    }
    for (const test::ProcessRun& run : processes.stop()) {
        VERIFY_EXIT_OK(run);
        QVERIFY2(!run.out.contains(QStringLiteral("REORG")), qPrintable(run.out.right(3000)));
    }
    expectSyncedWithEveryLog(b, env);
    store::ContractReader& r = b.open();
    QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = ?"),
                      {env}),
             qint64(0));
    QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM logs WHERE environment_id = ? AND "
                                     "address = '0x00000000000000000000000000000000000f0e16'"),
                      {env}),
             qint64(0));
    expectBalancesAreTheNodes(r, env);
    b.close();
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

void TestSharedTorture::expectBalancesAreTheNodes(store::ContractReader& r, const QString& env)
{
    // Every balance the node's Transfers sum to, and no other row.
    QHash<QString, QString> stored;
    for (auto q = r.query(QStringLiteral("SELECT contract, holder, balance FROM token_balances "
                                         "WHERE environment_id = ?"),
                          {env});
         q->next();)
        stored.insert(q->value(0).toString() + ' ' + q->value(1).toString(),
                      q->value(2).toString());
    QCOMPARE(stored, balancesOnTheNode(std::uint64_t(checkpointOf(r, env))));
}

QTEST_GUILESS_MAIN(TestSharedTorture)
#include "tst_sharedtorture.moc"
