// Completeness proven, not assumed: a provider that drops or truncates logs
// without a word can never make `forkscope index` say "synced" over a gap. Through the
// fault proxy, against a real anvil; every run is judged by the invariant checker plus an
// independent balance sum from the node's own logs. Each runs on both stores, the backend a
// data row (a SQLite file, or a database of its own on the suite's throwaway PostgreSQL
// cluster).
#include "IndexerLab.h"
#include "StoreRows.h"
#include "chain/Hex.h"
#include "chain/Keccak.h"
#include "chain/LogsBloom.h"
#include "lab/FaultProxy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>
#include <csignal>
#include <memory>

using namespace forkscope;
using test::IndexerLab;
using test::ProcessRun;

namespace {

// Whatever was committed is exactly the node's, up to the checkpoint; with no checkpoint,
// nothing at all was committed.
#define VERIFY_NO_GAP(lab, env)                                                                    \
    do {                                                                                           \
        if (checkpointOf(lab, env) < 0) {                                                          \
            for (const char* table : {"logs", "blocks"})                                           \
                QCOMPARE(                                                                          \
                    (lab).count(QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id "     \
                                               "= '%2'")                                           \
                                    .arg(table, env)),                                             \
                    0);                                                                            \
            break;                                                                                 \
        }                                                                                          \
        const QStringList problems = (lab).verify(env);                                            \
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join("\n")));                             \
    } while (0)

qint64 checkpointOf(const IndexerLab& lab, const QString& env)
{
    return lab.checkpointOf(env);
}

// Blocks of 20 Transfers (two tokens), separated by long runs of empty blocks, so that
// ranges of 100 to 1,000 blocks hold a few hundred logs.
void buildWorkload(IndexerLab& lab)
{
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(8, 10, 30);
    lab.mine(300);
    lab.sprayAll(8, 10, 30);
    lab.mine(400);
    lab.sprayAll(8, 10, 30);
}

// The three bloom bits of an item.
QList<int> bloomBits(const QByteArray& item)
{
    const chain::Hash32 h = chain::keccak256(item);
    QList<int> bits;
    for (int i = 0; i < 6; i += 2)
        bits << (((int(h.bytes()[std::size_t(i)]) << 8) | int(h.bytes()[std::size_t(i + 1)])) &
                 2047);
    return bits;
}

} // namespace

class TestCompleteness : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void silentCapsTheIndexerIsNotToldAbout_data();
    void silentCapsTheIndexerIsNotToldAbout();
    void blocksHiddenInEveryAnswerAreCaughtByTheBloom_data() { test::StoreRows::backendRows(); }
    void blocksHiddenInEveryAnswerAreCaughtByTheBloom();
    void bloomFalsePositiveIsCountedNotAnAlarm_data() { test::StoreRows::backendRows(); }
    void bloomFalsePositiveIsCountedNotAnAlarm();
    void aNodeThatDroppedLogsIsMarked_data() { test::StoreRows::backendRows(); }
    void aNodeThatDroppedLogsIsMarked();
    void receiptsProveAnHonestNode_data() { test::StoreRows::backendRows(); }
    void receiptsProveAnHonestNode();
    void randomDropsAreCaughtByTheReceiptsProof_data();
    void randomDropsAreCaughtByTheReceiptsProof();

private:
    test::StoreRows m_stores;
    std::unique_ptr<IndexerLab> m_capLab; // the silent caps' chain, indexed once per row
    QString m_capPg; // its PostgreSQL database (its SQLite file is the lab's own)
};

void TestCompleteness::initTestCase()
{
    // Blocks of up to 186 Transfers among only 6 holders, so that each block's bloom has
    // every bit its missing logs would set: the bloom cannot show what a cap left out.
    // Sizes around the caps (7, 50, 135), runs of empty blocks between, one block of
    // exactly 50 logs.
    m_stores.startCluster();
    m_capPg = m_stores.freshDatabase(QStringLiteral("postgresql"));
    m_capLab = std::make_unique<IndexerLab>();
    IndexerLab& lab = *m_capLab;
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(3, 93, 6);
    lab.mine(40);
    lab.sprayAll(1, 25, 6);
    lab.sprayAll(4, 3, 6);
    lab.mine(80);
    lab.sprayAll(2, 60, 6);
    lab.sprayAll(2, 70, 6);
    lab.mine(10);
    lab.sprayAll(6, 1, 6);
}

void TestCompleteness::cleanupTestCase()
{
    m_capLab.reset();
}

void TestCompleteness::silentCapsTheIndexerIsNotToldAbout_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("cap");
    QTest::addColumn<QStringList>("mode");
    QTest::addColumn<bool>("receipts"); // the node serves eth_getBlockReceipts
    const QList<QPair<const char*, QStringList>> modes{
        {"defaults", {}},
        {"one call per range", {"--logs-per-call", "0"}},
        {"ranges of 7, 4 workers", {"--batch-size", "7", "--fetch-workers", "4"}},
    };
    for (const QString& backend : test::StoreRows::backends())
        for (int cap : {7, 50, 135})
            for (const auto& [name, mode] : modes)
                for (bool receipts : {true, false})
                    QTest::addRow("%s, cap %d, %s, %s", qPrintable(backend), cap, name,
                                  receipts ? "receipts served" : "no receipts")
                        << backend << cap << mode << receipts;
}

void TestCompleteness::silentCapsTheIndexerIsNotToldAbout()
{
    // The provider cuts every eth_getLogs result (by range or by block hash) to `cap` logs
    // without a word, and the indexer is not told (no --log-cap). A reply as large as any
    // the node returned is proven before it is trusted: split, or answered larger by a
    // wider query, or proven by the block's receipts. With receipts, every log is indexed;
    // without, indexing stops naming the first block it cannot prove, and nothing before it
    // is short. Judged by the invariant checker and an independent sum of the node's logs.
    QFETCH(QString, backend);
    QFETCH(int, cap);
    QFETCH(QStringList, mode);
    QFETCH(bool, receipts);
    IndexerLab& lab = *m_capLab;
    lab.setDb(backend == QLatin1String("sqlite") ? QString() : m_capPg);
    const QString env = QStringLiteral("cap%1-%2-%3")
                            .arg(cap)
                            .arg(QString::number(qHash(mode.join(' ')), 16), receipts ? "r" : "n");
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setLogCap(quint64(cap), lab::FaultProxy::CapMode::Silent);
    proxy.setNoReceipts(!receipts);
    const ProcessRun run = lab.runIndex(env, QStringList{"--exit-when-synced"} + mode, proxy.url());
    QVERIFY(proxy.cappedReplies() > 0);
    if (receipts) {
        VERIFY_EXIT_OK(run);
        QVERIFY2(run.out.contains("synced: checkpoint"), qPrintable(run.out));
        QVERIFY2(run.out.contains(QString(" (the node caps results at %1 logs)").arg(cap)),
                 qPrintable(run.out));
        QCOMPARE(checkpointOf(lab, env), qint64(lab.eth().blockNumber()));
    } else {
        // Some block holds more logs of ours than the provider ever returns in one reply.
        VERIFY_ONE_ERROR_LINE(run, 1, (QStringList{"block ", proxy.url().toString()}));
        QVERIFY2(!run.out.contains("synced:"), qPrintable(run.out));
        const auto m = QRegularExpression("block (\\d+)").match(run.err);
        QVERIFY(m.hasMatch());
        const qint64 block = m.captured(1).toLongLong();
        QVERIFY2(checkpointOf(lab, env) < block, qPrintable(run.err));
    }
    // Whatever was committed is exactly the node's, up to the checkpoint.
    VERIFY_NO_GAP(lab, env);
}

void TestCompleteness::blocksHiddenInEveryAnswerAreCaughtByTheBloom()
{
    // A provider that hides every log of some blocks in every answer, the by-hash re-fetch
    // included, the same way each time: with the default checks, the block's logs do not
    // reproduce the header's bloom, which is proof.
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    buildWorkload(lab);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setSeed(7);
    proxy.setLogDrops(0.0, 0.5);
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced"}, proxy.url());
    VERIFY_ONE_ERROR_LINE(
        run, 1,
        (QStringList{"does not return every log of block", proxy.url().toString(), "logsBloom"}));
    const QRegularExpression named("of block (\\d+)");
    const auto m = named.match(run.err);
    QVERIFY(m.hasMatch());
    // Nothing from that batch, nor anything after it, is committed.
    QVERIFY2(checkpointOf(lab, "env") < m.captured(1).toLongLong(), qPrintable(run.err));
    VERIFY_NO_GAP(lab, "env");

    QCOMPARE(lab.count("SELECT count(*) FROM completeness_alerts WHERE resolved_at IS NULL"), 1);
    // Asked to wait it out, the run says it once, asks the node again, and gives up after
    // --give-up-after-ms with nothing more committed.
    const qint64 before = checkpointOf(lab, "env");
    const ProcessRun waited = lab.runIndex(
        "env", {"--exit-when-synced", "--retry-incomplete-ms", "100", "--give-up-after-ms", "1500"},
        proxy.url());
    QCOMPARE(waited.exitCode, 1);
    QCOMPARE(waited.err.count("trying the node again every 100 ms"), 1);
    QVERIFY2(waited.err.contains("gave up after 1500 ms of data incomplete") &&
                 waited.err.contains("does not return every log of block"),
             qPrintable(waited.err));
    QCOMPARE(checkpointOf(lab, "env"), before);
    // The same database, an honest node: it goes on and completes, and the alert is
    // resolved by the commit that covers its block.
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    VERIFY_NO_GAP(lab, "env");
    QCOMPARE(lab.count("SELECT count(*) FROM completeness_alerts WHERE resolved_at IS NULL"), 0);
}

void TestCompleteness::bloomFalsePositiveIsCountedNotAnAlarm()
{
    // Another contract's logs set every bloom bit of our contract's address: the bloom
    // admits our contract in a block that has no log of ours. Fetched whole by hash, the
    // block's logs reproduce the header's bloom and none is ours: a false positive,
    // counted, no alarm.
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    auto& ours = lab.deployToken("AAA");
    auto& other = lab.deployToken("ZZZ");
    const QList<int> bits = bloomBits(ours.address().toByteArray());
    QList<chain::Address> holders;
    for (int i = 0; i < 3; ++i) {
        // A holder whose 32-byte topic sets bit i of our address.
        for (quint32 n = 1;; ++n) {
            QByteArray raw(20, '\0');
            raw[0] = char(0x42);
            raw[1] = char(i);
            qToBigEndian(n, raw.data() + 16);
            if (bloomBits(QByteArray(12, '\0') + raw).contains(bits.at(i))) {
                holders << chain::Address::fromBytes(raw, QStringLiteral("holder"));
                break;
            }
        }
    }
    // The three transfers of the other token in one block.
    lab.rpc().callBlocking(QStringLiteral("evm_setAutomine"), {false});
    for (const auto& h : holders)
        lab.rpc().callBlocking(
            QStringLiteral("eth_sendTransaction"),
            {QJsonObject{{"from", other.sender().toHex()},
                         {"to", other.address().toHex()},
                         {"data", chain::hex::encodeData(
                                      lab::DemoToken::transferCalldata(h, chain::U256(1)))}}});
    lab.rpc().callBlocking(QStringLiteral("evm_mine"));
    lab.rpc().callBlocking(QStringLiteral("evm_setAutomine"), {true});
    const auto head = lab.eth().blockByNumber(lab.eth().blockNumber());
    QVERIFY(chain::bloom::mayContain(head->logsBloom, ours.address().toByteArray()));

    // Index our token only.
    const QStringList args{"index",
                           "--rpc",
                           lab.devnet().url().toString(),
                           "--db",
                           lab.db(),
                           "--env",
                           "env",
                           "--contract",
                           ours.address().toHex(),
                           "--exit-when-synced"};
    const ProcessRun run = test::runForkscope(args);
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains(QRegularExpression("[1-9]\\d* bloom false positives")),
             qPrintable(run.out));
    QVERIFY2(run.out.contains("truncations found and fetched again: 0 by bloom, 0 by recount"),
             qPrintable(run.out));
    QCOMPARE(checkpointOf(lab, "env"), qint64(head->number));
}

void TestCompleteness::aNodeThatDroppedLogsIsMarked()
{
    // A silent cap the indexer works around is still a lie: the node is marked "dropping
    // logs" in node health (and the metrics), with the count and the last block.
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    buildWorkload(lab);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setLogCap(50, lab::FaultProxy::CapMode::Silent);
    const quint16 port = lab::Devnet::findFreePort();
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral(FORKSCOPE_BINARY),
            lab.indexArgs("env",
                          {"--poll-ms", "100", "--metrics-port", QString::number(port), "--node",
                           proxy.url().toString(), "--check-interval-ms", "100"},
                          proxy.url()));
    QVERIFY(p.waitForStarted());
    QTRY_COMPARE_WITH_TIMEOUT(checkpointOf(lab, "env"), qint64(lab.eth().blockNumber()), 60000);
    QNetworkAccessManager nam;
    const auto metrics = [&] {
        QNetworkReply* r =
            nam.get(QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(port))));
        QSignalSpy done(r, &QNetworkReply::finished);
        done.wait(10000);
        const QString text = QString::fromUtf8(r->readAll());
        r->deleteLater();
        return text;
    };
    const QString node = proxy.url().toString();
    QTRY_VERIFY_WITH_TIMEOUT(metrics().contains("forkscope_node_state{node=\"" + node + "\"} 5"),
                             15000);
    const QString m = metrics();
    QVERIFY2(m.contains(QRegularExpression("forkscope_truncations_detected_total\\{node=\"" +
                                           QRegularExpression::escape(node) +
                                           "\",kind=\"(bloom|recount|split)\"\\} [1-9]")),
             qPrintable(m));
    QVERIFY2(m.contains(QRegularExpression(
                 "forkscope_completeness_checks_total\\{check=\"bloom\"\\} [1-9]")),
             qPrintable(m));
    ::kill(pid_t(p.processId()), SIGINT);
    const ProcessRun run = test::waitForProcess(p, 20000);
    QVERIFY2(run.out.contains("node " + node + ": caught up -> dropping logs"),
             qPrintable(run.out.right(3000)));
    VERIFY_NO_GAP(lab, "env");
}

void TestCompleteness::receiptsProveAnHonestNode()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    buildWorkload(lab);
    const ProcessRun run = lab.runIndex("env", {"--exit-when-synced", "--verify", "receipts"});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains(QRegularExpression("[1-9]\\d* receipt proofs")), qPrintable(run.out));
    VERIFY_NO_GAP(lab, "env");
}

void TestCompleteness::randomDropsAreCaughtByTheReceiptsProof_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<bool>("inReceipts");
    QTest::addColumn<QStringList>("named");
    for (const QString& backend : test::StoreRows::backends()) {
        QTest::addRow("%s, honest receipts: the missing logs named", qPrintable(backend))
            << backend << false << QStringList{"cannot be fetched whole", "missing", "logIndex"};
        QTest::addRow("%s, receipts lying too: they do not prove out", qPrintable(backend))
            << backend << true << QStringList{"cannot be proven complete", "receipts of block"};
    }
}

void TestCompleteness::randomDropsAreCaughtByTheReceiptsProof()
{
    QFETCH(bool, inReceipts);
    QFETCH(QStringList, named);
    // Random logs (not a prefix) left out of every answer, the by-hash re-fetch and the
    // receipts included: a block keeps some of its logs, so its bloom may still match. The
    // receipts root does not: with --verify receipts the first such block stops indexing,
    // named with the missing logs, and nothing from its batch is committed.
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    // Two tokens, each paying 5 holders twice per transaction: every log's address and
    // topics also appear in another log of its block, so a single dropped log leaves the
    // bloom unchanged and only the receipts can tell.
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    // Indexed from block 3, after the deploy blocks: their single mint logs would be
    // bloom-visible when dropped.
    lab.sprayAll(12, 10, 5);
    lab::FaultProxy proxy(lab.devnet().url());
    proxy.listen();
    proxy.setSeed(11);
    proxy.setLogDrops(0.05, 0.0, inReceipts);
    const ProcessRun run = lab.runIndex(
        "env", {"--exit-when-synced", "--verify", "receipts", "--from-block", "3"}, proxy.url());
    VERIFY_ONE_ERROR_LINE(run, 1, (QStringList{proxy.url().toString()} + named));
    const auto m = QRegularExpression("block (\\d+) cannot").match(run.err);
    QVERIFY(m.hasMatch());
    QVERIFY2(checkpointOf(lab, "env") < m.captured(1).toLongLong(), qPrintable(run.err));
    VERIFY_NO_GAP(lab, "env");
    // The report says so, and names it.
    const QString json = lab.tempPath("report.json");
    VERIFY_EXIT_OK(test::runForkscope(
        {"report", "--db", lab.db(), "--env", "env", "--format", "json", "--out", json}));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject completeness =
        QJsonDocument::fromJson(f.readAll()).object().value("completeness").toObject();
    QCOMPARE(completeness.value("state").toString(), QStringLiteral("data incomplete"));
    QCOMPARE(completeness.value("open_alerts").toArray().first().toObject().value("from_block"),
             QJsonValue(m.captured(1).toLongLong()));

    // forkscope repair from the block it stopped at, reading the honest node: nothing is
    // stored there to roll back; the alert is resolved and the range fetched. (With nothing
    // indexed at all, repair has nothing to start from and says to index: an honest run
    // resolves the alert when it commits the block.)
    if (checkpointOf(lab, "env") >= 0) {
        const ProcessRun repair =
            test::runForkscope({"repair", "--db", lab.db(), "--env", "env", "--rpc",
                                lab.devnet().url().toString(), "--from", m.captured(1)});
        VERIFY_EXIT_OK(repair);
        QVERIFY2(repair.out.contains("nothing to roll back"), qPrintable(repair.out));
    } else {
        VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"}));
    }
    QCOMPARE(lab.count("SELECT count(*) FROM completeness_alerts WHERE resolved_at IS NULL"), 0);
    QCOMPARE(checkpointOf(lab, "env"), qint64(lab.eth().blockNumber()));
    VERIFY_NO_GAP(lab, "env");
}

QTEST_GUILESS_MAIN(TestCompleteness)
#include "tst_completeness.moc"
