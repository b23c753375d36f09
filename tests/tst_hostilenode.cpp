// `forkscope index` against a node that lies, stalls or changes under it (through the fault
// proxy's knobs). Whatever the node does, nothing it was not asked for is stored, no reorg
// is invented, a proven reorg is rolled back at once, and a node that switched chains
// stops the environment.
#include "EnvironmentDump.h"
#include "IndexerLab.h"
#include "chain/Hex.h"
#include "lab/FaultProxy.h"

#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>
#include <csignal>

using namespace forkscope;
using test::IndexerLab;
using test::ProcessRun;

namespace {

#define VERIFY_INVARIANTS(lab, env)                                                                \
    do {                                                                                           \
        const QStringList problems = (lab).verify(env);                                            \
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));                             \
    } while (0)

// Starts `forkscope index` (following the head) and returns once its stdout matches.
struct FollowingIndexer
{
    QProcess process;
    bool waitFor(const QString& text, int timeoutMs)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < timeoutMs) {
            if (QString::fromUtf8(process.peek(1 << 22)).contains(text))
                return true;
            if (process.state() == QProcess::NotRunning)
                return false;
            QTest::qWait(50);
        }
        return false;
    }
    ProcessRun stop()
    {
        if (process.state() != QProcess::NotRunning)
            ::kill(pid_t(process.processId()), SIGINT);
        return test::waitForProcess(process, 20000);
    }
};

qint64 checkpointOf(const IndexerLab& lab, const QString& env)
{
    return lab.checkpointOf(env);
}

} // namespace

class TestHostileNode : public QObject
{
    Q_OBJECT
private slots:
    void logsNobodyAskedForAreRefused_data();
    void logsNobodyAskedForAreRefused();
    void headersThatDoNotLinkAreNoReorg();
    void rollbackWithoutNewBlockIsRolledBackNow();
    void nodeSwitchedToAnotherChainStopsTheEnvironment_data();
    void nodeSwitchedToAnotherChainStopsTheEnvironment();
    void identityChangeIsNoticedBeforeTheNextCommit_data();
    void identityChangeIsNoticedBeforeTheNextCommit();
    void exitWhenSyncedGivesUpOnANodeInTrouble_data();
    void exitWhenSyncedGivesUpOnANodeInTrouble();
    void tricklingNodeTimesOutAndSaysSo();
    void replyOverTheCapIsFetchedInSmallerRanges();
};

void TestHostileNode::logsNobodyAskedForAreRefused_data()
{
    QTest::addColumn<QString>("lie");
    QTest::addColumn<QString>("named");
    QTest::newRow("foreign address") << "foreign-log"
                                     << "which was not requested";
    QTest::newRow("outside the range") << "out-of-range-log"
                                       << "outside the requested block range";
    QTest::newRow("another block hash") << "wrong-log-hash"
                                        << "block hash";
    // Once a crash in the bloom check: the header's number was used before it was checked.
    QTest::newRow("a header of another number") << "shifted-header"
                                                << "the node answered block";
}

void TestHostileNode::logsNobodyAskedForAreRefused()
{
    QFETCH(QString, lie);
    QFETCH(QString, named);
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(6, 4, 8);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    QCOMPARE(proxy.applyKnobs({{"lie", lie}}), QString());

    FollowingIndexer ix;
    ix.process.start(QStringLiteral(FORKSCOPE_BINARY),
                     lab.indexArgs("env", {"--poll-ms", "100"}, proxy.url()));
    QVERIFY(ix.process.waitForStarted());
    QVERIFY2(ix.waitFor("node inconsistent", 30000), qPrintable(ix.process.peek(1 << 20)));
    QVERIFY2(ix.waitFor(named, 10000), qPrintable(ix.process.peek(1 << 20)));
    QTest::qWait(1500); // more rounds against the same lie
    const ProcessRun run = ix.stop();
    VERIFY_EXIT_OK(run);
    QVERIFY2(!run.out.contains("REORG"), qPrintable(run.out));

    // Nothing foreign is stored, and no block whose logs were refused is claimed.
    QCOMPARE(lab.count("SELECT count(*) FROM logs WHERE address = "
                       "'0x00000000000000000000000000000000000f0e16'"),
             0);
    QCOMPARE(lab.count("SELECT count(*) FROM transfer_events WHERE contract = "
                       "'0x00000000000000000000000000000000000f0e16'"),
             0);
    const auto firstLogBlock = lab.eth()
                                   .getLogs({0, lab.eth().blockNumber(), lab.contracts(), {}, {}})
                                   .first()
                                   .blockNumber;
    QVERIFY2(checkpointOf(lab, "env") < qint64(firstLogBlock),
             qPrintable(QStringLiteral("checkpoint %1 covers block %2, whose logs were refused")
                            .arg(checkpointOf(lab, "env"))
                            .arg(firstLogBlock)));

    // An honest node afterwards: everything is indexed, exactly.
    proxy.setLie(lab::ProxyLie::None);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}, proxy.url()));
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);
    VERIFY_INVARIANTS(lab, "env");
}

void TestHostileNode::headersThatDoNotLinkAreNoReorg()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(5, 3, 5);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    lab.sprayAll(5, 3, 5);
    const qint64 checkpoint = checkpointOf(lab, "env");

    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setLie(lab::ProxyLie::UnlinkedHeaders);
    FollowingIndexer ix;
    ix.process.start(QStringLiteral(FORKSCOPE_BINARY),
                     lab.indexArgs("env", {"--poll-ms", "50"}, proxy.url()));
    QVERIFY(ix.process.waitForStarted());
    QVERIFY2(ix.waitFor("do not link", 30000), qPrintable(ix.process.peek(1 << 20)));
    QTest::qWait(3000); // the flood of the bug: 67 depth-0 reorgs in 8 s
    const ProcessRun run = ix.stop();
    VERIFY_EXIT_OK(run);
    QVERIFY2(!run.out.contains("REORG"), qPrintable(run.out));
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);
    QCOMPARE(checkpointOf(lab, "env"), checkpoint);
    // It backs off instead of asking in a loop: a handful of rounds, not hundreds.
    const auto inconsistent = run.out.count(QStringLiteral("node inconsistent"));
    QVERIFY2(inconsistent >= 1, qPrintable(run.out));

    proxy.setLie(lab::ProxyLie::None);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}, proxy.url()));
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events WHERE depth = 0"), 0);
    VERIFY_INVARIANTS(lab, "env");
}

void TestHostileNode::rollbackWithoutNewBlockIsRolledBackNow()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(8, 3, 6);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    const std::uint64_t head = lab.eth().blockNumber();
    // anvil_rollback 4 and one new block: the node's head is below the checkpoint, and the
    // block it serves there is not the one stored. (A plain rollback leaves the node's head
    // block as stored: that looks exactly like a lagging node, and waiting is right.)
    lab.rpc().callBlocking(QStringLiteral("anvil_rollback"), {4});
    lab.sprayAll(1, 2, 6);
    QCOMPARE(lab.eth().blockNumber(), head - 3);
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced", "--poll-ms", "100"}, {},
                                        QProcessEnvironment::systemEnvironment(), 60000);
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains("REORG (hash mismatch): checkpoint " + QString::number(head)),
             qPrintable(run.out));
    QCOMPARE(checkpointOf(lab, "env"), qint64(head - 3));
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events WHERE depth = 0"), 0);
    VERIFY_INVARIANTS(lab, "env");
}

void TestHostileNode::nodeSwitchedToAnotherChainStopsTheEnvironment_data()
{
    QTest::addColumn<quint64>("chainId");
    QTest::addColumn<QStringList>("anvilArgs");
    // A reset devnet: the same chain id, another genesis (anvil's genesis hash follows its
    // timestamp, so two started in the same second would be the same chain).
    QTest::newRow("another genesis") << quint64(31337) << QStringList{"--timestamp", "1700000000"};
    QTest::newRow("another chain id") << quint64(1337) << QStringList{};
}

void TestHostileNode::nodeSwitchedToAnotherChainStopsTheEnvironment()
{
    QFETCH(quint64, chainId);
    QFETCH(QStringList, anvilArgs);
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(4, 3, 5);
    lab::Devnet::Options options;
    options.chainId = chainId;
    options.extraArgs = anvilArgs;
    IndexerLab other(options); // another chain, taller than ours
    other.mine(40);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    FollowingIndexer ix;
    ix.process.start(QStringLiteral(FORKSCOPE_BINARY),
                     lab.indexArgs("env", {"--poll-ms", "100"}, proxy.url()));
    QVERIFY(ix.process.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(checkpointOf(lab, "env"), qint64(lab.eth().blockNumber()), 30000);
    // The indexer at rest: the checkpoint's creation stamps verified_at and the next step
    // stamps it again (then every 30 s), so "before" is a dump that holds for a second.
    const auto settled = [&lab](QString& dump) {
        const QString first = lab.dump();
        QTest::qWait(1000);
        dump = lab.dump();
        return dump == first;
    };
    QString before;
    QTRY_VERIFY_WITH_TIMEOUT(settled(before), 20000);
    const QStringList rowsBefore = test::databaseRows(lab.dbPath());

    // The provider goes away and comes back serving another chain.
    proxy.setOffline(true);
    QVERIFY2(ix.waitFor("node unreachable", 20000), qPrintable(ix.process.peek(1 << 20)));
    proxy.setUpstream(other.devnet().url());
    proxy.setOffline(false);
    const ProcessRun run = test::waitForProcess(ix.process, 60000);
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    const QStringList lines = run.err.trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines[0].startsWith("forkscope: the chain was reset; open a new environment"),
             qPrintable(run.err));
    QVERIFY2(!run.out.contains("REORG"), qPrintable(run.out));
    const QStringList rowsAfter = test::databaseRows(lab.dbPath());
    QStringList changed;
    for (const QString& r : rowsBefore)
        if (!rowsAfter.contains(r))
            changed << "- " + r;
    for (const QString& r : rowsAfter)
        if (!rowsBefore.contains(r))
            changed << "+ " + r;
    QVERIFY2(changed.isEmpty(), qPrintable(changed.join('\n') + "\n" + run.out.right(3000)));
    QCOMPARE(lab.dump(), before);
}

void TestHostileNode::identityChangeIsNoticedBeforeTheNextCommit_data()
{
    QTest::addColumn<QString>("lie");
    QTest::newRow("only the chain id") << "other-chain-id";
    QTest::newRow("only the genesis") << "other-genesis";
}

void TestHostileNode::identityChangeIsNoticedBeforeTheNextCommit()
{
    // The node keeps serving the same blocks but says it is another chain (its chain id, or
    // its genesis hash, changed under the same URL). Every round checks the node's identity
    // before it commits: no block mined after the change is committed, and the indexer
    // stops as it would at start-up.
    QFETCH(QString, lie);
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(4, 3, 5);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    FollowingIndexer ix;
    ix.process.start(QStringLiteral(FORKSCOPE_BINARY),
                     lab.indexArgs("env", {"--poll-ms", "50"}, proxy.url()));
    QVERIFY(ix.process.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(checkpointOf(lab, "env"), qint64(lab.eth().blockNumber()), 30000);
    QCOMPARE(proxy.applyKnobs({{"lie", lie}}), QString());
    const qint64 headAtChange = qint64(lab.eth().blockNumber());
    for (int i = 0; i < 5; ++i) {
        lab.sprayAll(1, 3, 5);
        QTest::qWait(100);
    }
    const ProcessRun run = test::waitForProcess(ix.process, 60000);
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QVERIFY2(run.err.contains("the chain was reset"), qPrintable(run.err));
    QVERIFY2(checkpointOf(lab, "env") <= headAtChange,
             qPrintable(QStringLiteral("checkpoint %1 past the head %2 at the change")
                            .arg(checkpointOf(lab, "env"))
                            .arg(headAtChange)));
    VERIFY_INVARIANTS(lab, "env");
}

void TestHostileNode::exitWhenSyncedGivesUpOnANodeInTrouble_data()
{
    QTest::addColumn<QJsonObject>("knobs");
    QTest::addColumn<QString>("named");
    QTest::newRow("unreachable") << QJsonObject{{"offline", true}} << "node unreachable";
    QTest::newRow("inconsistent") << QJsonObject{{"lie", "shifted-header"}} << "node inconsistent";
}

void TestHostileNode::exitWhenSyncedGivesUpOnANodeInTrouble()
{
    // A batch job must end: a node that stays dead or keeps answering other requests is
    // waited on for --give-up-after-ms, then the run exits 1 naming the trouble, the
    // checkpoint where it was.
    QFETCH(QJsonObject, knobs);
    QFETCH(QString, named);
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(3, 3, 5);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    const qint64 checkpoint = checkpointOf(lab, "env");
    lab.sprayAll(3, 3, 5);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    QCOMPARE(proxy.applyKnobs(knobs), QString());
    const ProcessRun run =
        lab.runIndex("env",
                     {"--exit-when-synced", "--give-up-after-ms", "2000", "--rpc-timeout-ms", "500",
                      "--poll-ms", "100"},
                     proxy.url(), QProcessEnvironment::systemEnvironment(), 60000);
    VERIFY_ONE_ERROR_LINE(run, 1, (QStringList{"gave up after", named, "--give-up-after-ms"}));
    QCOMPARE(checkpointOf(lab, "env"), checkpoint);
    VERIFY_INVARIANTS(lab, "env");
}

void TestHostileNode::tricklingNodeTimesOutAndSaysSo()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(2, 2, 3);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    FollowingIndexer ix;
    ix.process.start(
        QStringLiteral(FORKSCOPE_BINARY),
        lab.indexArgs("env", {"--poll-ms", "100", "--rpc-timeout-ms", "700"}, proxy.url()));
    QVERIFY(ix.process.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(checkpointOf(lab, "env"), qint64(lab.eth().blockNumber()), 30000);

    // The node now answers one byte a second: every request hits its deadline, and the
    // output says so with the count (it sat silently in "starting" before).
    proxy.setTrickleBytesPerSecond(1);
    lab.sprayAll(2, 2, 3);
    QVERIFY2(ix.waitFor("no reply within 700 ms", 20000), qPrintable(ix.process.peek(1 << 20)));
    QVERIFY2(ix.waitFor(" so far]", 20000), qPrintable(ix.process.peek(1 << 20)));
    static const QRegularExpression timeouts(R"(\[(1 timeout|\d+ timeouts) so far\])");
    QVERIFY2(QString(ix.process.peek(1 << 20)).contains(timeouts),
             qPrintable(ix.process.peek(1 << 20)));
    proxy.setTrickleBytesPerSecond(0); // the node recovers: indexing goes on
    QTRY_COMPARE_WITH_TIMEOUT(checkpointOf(lab, "env"), qint64(lab.eth().blockNumber()), 30000);
    const ProcessRun run = ix.stop();
    VERIFY_EXIT_OK(run);
    // No Qt warnings leak to stderr (it printed "QIODevice::read (QNetworkReplyHttpImpl):
    // device not open" for each timeout).
    QVERIFY2(run.err.trimmed().isEmpty(), qPrintable(run.err));
    VERIFY_INVARIANTS(lab, "env");
}

void TestHostileNode::replyOverTheCapIsFetchedInSmallerRanges()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(80, 30, 30); // 2,400 logs: about 1.7 MB in one eth_getLogs reply
    // One call per range: parts of about 1,000 logs would each stay under the cap.
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced", "--max-reply-mb", "1",
                                                "--batch-size", "1000", "--logs-per-call", "0"});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains(QRegularExpression("synced: .* \\(([1-9]\\d*) range halvings")),
             qPrintable(run.out));
    VERIFY_INVARIANTS(lab, "env");

    // A node whose every reply is padded past the cap: nothing is read whole into memory,
    // and the indexer says why it cannot go on.
    lab.sprayAll(2, 2, 3);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setPadReplyBytes(3 * 1024 * 1024);
    FollowingIndexer ix;
    ix.process.start(
        QStringLiteral(FORKSCOPE_BINARY),
        lab.indexArgs("env", {"--poll-ms", "100", "--max-reply-mb", "1"}, proxy.url()));
    QVERIFY(ix.process.waitForStarted());
    QVERIFY2(ix.waitFor("reply too large", 30000), qPrintable(ix.process.peek(1 << 20)));
    const ProcessRun stopped = ix.stop();
    VERIFY_EXIT_OK(stopped);
    QVERIFY2(stopped.err.trimmed().isEmpty(), qPrintable(stopped.err));
}

QTEST_GUILESS_MAIN(TestHostileNode)
#include "tst_hostilenode.moc"
