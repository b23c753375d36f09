// Several `forkscope index` processes backfilling one environment into one PostgreSQL
// database, end to end: a real anvil with token traffic, a throwaway cluster
// (lab::PgLab), three processes behind a slow proxy, one killed with -9 while it holds a
// range. The survivors take its range over, and the stored logs are checked against the
// node by an independent query, through the contract's hex views.
#include "IndexerLab.h"
#include "SharedWriter.h"
#include "WebhookRecorder.h"
#include "chain/SignedAmount.h"
#include "chain/U256.h"
#include "indexer/Indexer.h"
#include "indexer/IndexerErrors.h"
#include "indexer/TransferDecoder.h"
#include "lab/FaultProxy.h"
#include "lab/PgLab.h"
#include "lab/ReorgInjector.h"
#include "rpc/JsonRpcClient.h"
#include "store/OpenStore.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"

#include <QtTest>
#include <csignal>
#include <map>

using namespace forkscope;
using store::pg::PgConnection;
using test::InProcessWriter;
using test::stepUntilSynced;
using test::storedLogKeys;

class TestSharedBackfill : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void threeProcessesOneKilledMidRange();
    void outboxDeliveredOncePerKeyAcrossProcessesWithAKill();
    void oneProcessFollowsTheHeadAnotherTakesOverAndAReorgIsUndone();
    void outboxDeliveredWhileFollowing();
    void deliveredTransfersAreRetractedAfterAReorg();
    void outboxDeliveredDuringTheBackfill();
    void anEnvironmentOfAnotherChainOrContractSetIsRefused();
    void reportVerifiesTheSharedIndexAgainstTheNode();
    void aChainShorterThanThePlanIsIndexedToItsHead();
    void aRangeStoredByWhoeverTookItOverIsNotStoredAgain();

private:
    QStringList indexArgs(const QString& env, const QUrl& rpc) const;
    // The outbox keys of the node's Transfers in blocks from..to, as the consumer gets them.
    QSet<QByteArray> transferKeys(std::uint64_t from, std::uint64_t to) const;
    void checkAgainstNode(PgConnection& db, const QString& env, qint64 head)
    {
        test::checkSharedAgainstNode(*m_lab, db, env, head);
    }

    std::unique_ptr<test::IndexerLab> m_lab;
    lab::PgLab m_cluster;
};

void TestSharedBackfill::initTestCase()
{
    m_lab = test::twoTokenChain();
    m_cluster.start();
}

QStringList TestSharedBackfill::indexArgs(const QString& env, const QUrl& rpc) const
{
    QStringList args{QStringLiteral("index"),
                     QStringLiteral("--rpc"),
                     rpc.toString(),
                     QStringLiteral("--db"),
                     m_cluster.url(),
                     QStringLiteral("--env"),
                     env,
                     QStringLiteral("--batch-size"),
                     QStringLiteral("8"),
                     QStringLiteral("--lease-ms"),
                     QStringLiteral("1500"),
                     QStringLiteral("--exit-when-synced")};
    return args + m_lab->contractArgs();
}

QSet<QByteArray> TestSharedBackfill::transferKeys(std::uint64_t from, std::uint64_t to) const
{
    rpc::LogFilter f;
    f.fromBlock = from;
    f.toBlock = to;
    f.addresses = m_lab->contracts();
    QSet<QByteArray> keys;
    for (const chain::LogEntry& l : m_lab->eth().getLogs(f))
        if (std::holds_alternative<indexer::Transfer>(indexer::decodeTransfer(l)))
            keys.insert(QStringLiteral("transfer:%1:%2:%3")
                            .arg(l.blockNumber)
                            .arg(l.blockHash.toHex())
                            .arg(l.logIndex)
                            .toUtf8());
    return keys;
}

void TestSharedBackfill::threeProcessesOneKilledMidRange()
{
    const QString env = QStringLiteral("shared");
    // Every reply 40 ms late: a range takes a few hundred ms, long enough to be killed in.
    lab::FaultProxy slow(m_lab->devnet().url());
    slow.listen();
    slow.setLatencyMs(40);
    // And 3% of requests fail (503 or a JSON-RPC error): a range whose fetch fails goes
    // back to be retried, counted, and nothing of it is stored twice.
    slow.setErrorRate(0.03);
    const qint64 head = qint64(m_lab->eth().blockNumber());

    std::vector<std::unique_ptr<QProcess>> procs;
    for (int i = 0; i < 3; ++i)
        procs.push_back(std::make_unique<QProcess>());
    const auto start = [&](int i) {
        procs[std::size_t(i)]->start(QStringLiteral(FORKSCOPE_BINARY), indexArgs(env, slow.url()));
    };
    auto db = PgConnection::open(m_cluster.url());
    // The victim: the second process, once it holds a range (found by its owner name,
    // host/pid, in range_store) and ranges were stored before. It starts first, and the
    // others once it holds one: on a loaded machine a process that starts late may find
    // every range taken, and would never hold one to be killed in.
    QProcess& victim = *procs[1];
    start(1);
    const QByteArray owner = "%/" + QByteArray::number(victim.processId());
    const auto holds = [&] {
        try {
            return db->run("t_holds",
                           "SELECT count(*) FROM range_store WHERE environment_id = $1 AND "
                           "status = 'running' AND owner LIKE $2",
                           {env.toUtf8(), owner})
                       .int64(0, 0) >= 1;
        } catch (const store::StoreError&) {
            return false; // the tables are made by the first process to start
        }
    };
    QTRY_VERIFY2_WITH_TIMEOUT(holds(), qPrintable(QString::fromUtf8(victim.readAll())), 60'000);
    start(0);
    start(2);
    const auto rangesDone = [&]() -> qint64 {
        try {
            return db
                ->run("t_done_by",
                      "SELECT count(*) FROM backfill_ranges WHERE environment_id = $1 AND "
                      "status = 'done'",
                      {env.toUtf8()})
                .int64(0, 0);
        } catch (const store::StoreError&) {
            return -1;
        }
    };
    QTRY_VERIFY_WITH_TIMEOUT(rangesDone() >= 2 && holds(), 60'000);
    QVERIFY(holds());
    const qint64 victimRange =
        db->run("t_victim_range",
                "SELECT from_block FROM range_store WHERE environment_id = $1 AND status = "
                "'running' AND owner LIKE $2 ORDER BY from_block LIMIT 1",
                {env.toUtf8(), owner})
            .int64(0, 0);
    ::kill(pid_t(victim.processId()), SIGKILL);
    QVERIFY(victim.waitForFinished(10'000));

    for (int i : {0, 2}) {
        QProcess& p = *procs[std::size_t(i)];
        QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning, 120'000);
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 qPrintable(out + err));
        QVERIFY2(out.contains(QStringLiteral("synced: checkpoint %1 at head %1").arg(head)),
                 qPrintable(out));
        qInfo().noquote() << "process" << i << "said:\n" << out.trimmed();
    }
    // The killed process's range: claimed again at once, its session having ended.
    const auto taken = db->run("t_taken",
                               "SELECT attempts, last_error, status FROM backfill_ranges WHERE "
                               "environment_id = $1 AND from_block = $2",
                               {env.toUtf8(), QByteArray::number(victimRange)});
    QVERIFY(taken.int64(0, 0) >= 2);
    QVERIFY2(taken.text(0, 1).contains("ended (its process is gone); taken over by"),
             taken.text(0, 1).constData());
    QCOMPARE(taken.text(0, 2), QByteArray("done"));

    checkAgainstNode(*db, env, head);
    if (QTest::currentTestFailed())
        return;
    // Every block once, linked to its parent, the checkpoint on the node's block.
    QCOMPARE(db->run("t_blocks",
                     "SELECT count(*), count(DISTINCT block_number) FROM blocks "
                     "WHERE environment_id = $1",
                     {env.toUtf8()})
                 .int64(0, 1),
             head + 1);
    QCOMPARE(db->run("t_links",
                     "SELECT count(*) FROM block_store a JOIN block_store b ON "
                     "b.environment_id = a.environment_id AND b.block_number = a.block_number "
                     "+ 1 WHERE a.environment_id = $1 AND b.parent_hash <> a.block_hash",
                     {env.toUtf8()})
                 .int64(0, 0),
             0);
    const QByteArray hash = db->run("t_hash",
                                    "SELECT block_hash FROM blocks WHERE environment_id = $1 "
                                    "AND block_number = $2",
                                    {env.toUtf8(), QByteArray::number(head)})
                                .text(0, 0);
    QCOMPARE(QString::fromLatin1(hash),
             m_lab->eth().blockByNumber(std::uint64_t(head))->hash.toHex());
}

void TestSharedBackfill::outboxDeliveredOncePerKeyAcrossProcessesWithAKill()
{
    const QString env = QStringLiteral("outbox");
    // A receiver that fails about half its requests with 503, from a fixed seed.
    test::WebhookRecorder hook;
    hook.setPattern(test::WebhookRecorder::flapping(17, 503));
    const QStringList args = indexArgs(env, m_lab->devnet().url()) +
                             QStringList{QStringLiteral("--webhook"), hook.url().toString()};
    auto first = std::make_unique<QProcess>();
    auto second = std::make_unique<QProcess>();
    first->start(QStringLiteral(FORKSCOPE_BINARY), args);
    second->start(QStringLiteral(FORKSCOPE_BINARY), args);
    auto db = PgConnection::open(m_cluster.url());
    // Once deliveries are under way, kill whichever process holds the outbox lock (its
    // connection is named after it), mid-delivery.
    const auto holderPid = [&]() -> qint64 {
        const auto r = db->run("t_holder",
                               "SELECT a.application_name FROM pg_locks l JOIN "
                               "pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = "
                               "'advisory' AND l.granted AND l.classid = 1181445987 AND "
                               "l.objid = hashtext($1::text)::oid",
                               {"outbox/" + env.toUtf8() + "/31337"});
        // "forkscope HOST/PID (outbox)": the delivery's own connection.
        return r.rows() == 1 ? r.text(0, 0).split('/').last().split(' ').first().toLongLong() : 0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(hook.acceptedKeys().size() >= 20 && holderPid() != 0, 120'000);
    const qint64 victim = holderPid();
    QProcess& killed = first->processId() == victim ? *first : *second;
    QProcess& survivor = first->processId() == victim ? *second : *first;
    QCOMPARE(killed.processId(), victim);
    ::kill(pid_t(victim), SIGKILL);
    QVERIFY(killed.waitForFinished(10'000));
    const qsizetype acceptedAtKill = hook.acceptedKeys().size();

    QTRY_VERIFY_WITH_TIMEOUT(survivor.state() == QProcess::NotRunning, 180'000);
    const QString out = QString::fromUtf8(survivor.readAllStandardOutput());
    QVERIFY2(survivor.exitStatus() == QProcess::NormalExit && survivor.exitCode() == 0,
             qPrintable(out + QString::fromUtf8(survivor.readAllStandardError())));
    QVERIFY2(out.contains(QStringLiteral("outbox: this writer delivers the outbox of %1").arg(env)),
             qPrintable(out)); // it took over
    QVERIFY(hook.acceptedKeys().size() > acceptedAtKill);

    // What the consumer received, against the node: a key per Transfer, no other.
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = m_lab->eth().blockNumber();
    f.addresses = m_lab->contracts();
    QSet<QByteArray> expected;
    for (const chain::LogEntry& l : m_lab->eth().getLogs(f))
        if (std::holds_alternative<indexer::Transfer>(indexer::decodeTransfer(l)))
            expected.insert(QStringLiteral("transfer:%1:%2:%3")
                                .arg(l.blockNumber)
                                .arg(l.blockHash.toHex())
                                .arg(l.logIndex)
                                .toUtf8());
    QHash<QByteArray, int> times;
    for (const QByteArray& k : hook.acceptedKeys())
        ++times[k];
    QCOMPARE(QSet<QByteArray>(times.keyBegin(), times.keyEnd()), expected);
    // Twice only for the row in flight when its deliverer was killed (sent, not yet marked
    // delivered): the next holder sends it again with the same key, which the consumer
    // deduplicates. Nothing else is repeated.
    int repeated = 0;
    for (auto it = times.cbegin(); it != times.cend(); ++it)
        repeated += it.value() > 1 ? 1 : 0;
    QVERIFY2(repeated <= 1, qPrintable(QString::number(repeated)));
    qInfo("killed after %lld accepted deliveries; %d key(s) delivered twice, %lld requests in all",
          static_cast<long long>(acceptedAtKill), repeated,
          static_cast<long long>(hook.requests().size()));
    QCOMPARE(db->run("t_undelivered",
                     "SELECT count(*) FROM outbox WHERE environment_id = $1 AND delivered_at "
                     "IS NULL",
                     {env.toUtf8()})
                 .int64(0, 0),
             0);
    QCOMPARE(db->run("t_outbox_rows", "SELECT count(*) FROM outbox WHERE environment_id = $1",
                     {env.toUtf8()})
                 .int64(0, 0),
             expected.size());
}

void TestSharedBackfill::oneProcessFollowsTheHeadAnotherTakesOverAndAReorgIsUndone()
{
    const QString env = QStringLiteral("follow");
    QStringList args = indexArgs(env, m_lab->devnet().url());
    args.removeAll(QStringLiteral("--exit-when-synced"));
    args << QStringLiteral("--poll-ms") << QStringLiteral("100");
    QProcess a, b;
    a.start(QStringLiteral(FORKSCOPE_BINARY), args);
    b.start(QStringLiteral(FORKSCOPE_BINARY), args);
    auto db = PgConnection::open(m_cluster.url());
    const auto checkpoint = [&]() -> std::pair<qint64, QByteArray> {
        try {
            const auto r = db->run("t_cp",
                                   "SELECT block_number, block_hash FROM "
                                   "indexer_checkpoints WHERE environment_id = $1",
                                   {env.toUtf8()});
            if (r.rows() == 1) // the hash as the node writes it, "0x..." (as on a file)
                return {r.int64(0, 0), r.text(0, 1)};
        } catch (const store::StoreError&) {
        }
        return {-2, {}};
    };
    // On the node's head: its height and its hash.
    const auto onHead = [&] {
        const auto h = m_lab->eth().latestBlock();
        return h && checkpoint() == std::pair<qint64, QByteArray>(qint64(h->number),
                                                                  h->hash.toHex().toLatin1());
    };
    QTRY_VERIFY_WITH_TIMEOUT(onHead(), 120'000); // backfilled, then followed
    m_lab->sprayAll(2, 2, 12);                   // new blocks at the head
    QTRY_VERIFY_WITH_TIMEOUT(onHead(), 60'000);

    // Exactly one follows: the holder of the head lock. Kill it; the other takes over.
    const auto holders = [&] {
        return db->run("t_head_holder",
                       "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON "
                       "a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND "
                       "l.classid = 1181445987 AND l.objid = hashtext($1::text)::oid",
                       {"head/" + env.toUtf8() + "/31337"});
    };
    QCOMPARE(holders().rows(), 1);
    const qint64 leader = holders().text(0, 0).split('/').last().toLongLong();
    QProcess& killed = a.processId() == leader ? a : b;
    QProcess& survivor = a.processId() == leader ? b : a;
    QCOMPARE(killed.processId(), leader);
    ::kill(pid_t(leader), SIGKILL);
    QVERIFY(killed.waitForFinished(10'000));
    m_lab->sprayAll(2, 2, 12);
    QTRY_VERIFY_WITH_TIMEOUT(onHead(), 60'000);
    QTRY_COMPARE_WITH_TIMEOUT(holders().rows(), 1, 10'000);
    QCOMPARE(holders().text(0, 0).split('/').last().toLongLong(), survivor.processId());

    // A reorg of the last 3 blocks (their Transfers dropped): rolled back and re-indexed,
    // and announced to listeners (LISTEN forkscope_checkpoint) as it commits.
    auto listener = PgConnection::open(m_cluster.url());
    listener->listen(store::pg::kCheckpointChannel);
    m_lab->reorg(3);
    QTRY_VERIFY_WITH_TIMEOUT(db->run("t_reorgs",
                                     "SELECT count(*) FROM reorg_events WHERE environment_id = $1",
                                     {env.toUtf8()})
                                     .int64(0, 0) >= 1,
                             60'000);
    QTRY_VERIFY_WITH_TIMEOUT(onHead(), 60'000);
    const auto reorg =
        db->run("t_reorg", "SELECT depth, reason FROM reorg_events WHERE environment_id = $1",
                {env.toUtf8()});
    QCOMPARE(reorg.int64(0, 0), 3);
    bool announced = false;
    for (const auto& n : listener->notifications(1000))
        announced = announced || (n.payload.contains("\"reorg\" : true") &&
                                  n.payload.contains("\"env\" : \"follow\""));
    QVERIFY(announced);
    checkAgainstNode(*db, env, checkpoint().first);
    if (QTest::currentTestFailed())
        return;

    ::kill(pid_t(survivor.processId()), SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(survivor.state() == QProcess::NotRunning, 30'000);
    const QString out = QString::fromUtf8(survivor.readAllStandardOutput());
    QVERIFY2(survivor.exitStatus() == QProcess::NormalExit && survivor.exitCode() == 0,
             qPrintable(out + QString::fromUtf8(survivor.readAllStandardError())));
    qInfo().noquote() << "the survivor said:\n" << out.trimmed();
    QVERIFY2(out.contains(QStringLiteral("following the head of %1").arg(env)) &&
                 out.contains(QLatin1String("REORG (hash mismatch)")),
             qPrintable(out));
}

void TestSharedBackfill::outboxDeliveredWhileFollowing()
{
    const QString env = QStringLiteral("follow-outbox");
    test::WebhookRecorder hook;
    QStringList args = indexArgs(env, m_lab->devnet().url());
    args.removeAll(QStringLiteral("--exit-when-synced"));
    args << QStringLiteral("--poll-ms") << QStringLiteral("100") << QStringLiteral("--webhook")
         << hook.url().toString() << QStringLiteral("--confirmations") << QStringLiteral("2");
    QProcess a, b;
    a.start(QStringLiteral(FORKSCOPE_BINARY), args);
    b.start(QStringLiteral(FORKSCOPE_BINARY), args);
    // The keys of every Transfer at least 2 blocks deep: what must arrive, and no more.
    const auto expectedKeys = [&] { return transferKeys(0, m_lab->eth().blockNumber() - 2); };
    const auto received = [&] {
        const QList<QByteArray> keys = hook.acceptedKeys();
        return QSet<QByteArray>(keys.cbegin(), keys.cend());
    };
    QTRY_COMPARE_WITH_TIMEOUT(received(), expectedKeys(), 120'000); // the backfill's
    m_lab->sprayAll(2, 2, 12); // new Transfers at the head: delivered as they are followed
    m_lab->mine(2);            // and buried 2 deep
    QTRY_COMPARE_WITH_TIMEOUT(received(), expectedKeys(), 60'000);
    QCOMPARE(hook.acceptedKeys().size(), received().size()); // none twice
    for (QProcess* p : {&a, &b}) {
        ::kill(pid_t(p->processId()), SIGTERM);
        QTRY_VERIFY_WITH_TIMEOUT(p->state() == QProcess::NotRunning, 30'000);
        QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0,
                 p->readAllStandardError().constData());
    }
}

void TestSharedBackfill::deliveredTransfersAreRetractedAfterAReorg()
{
    // No confirmations: every Transfer is delivered as soon as it is followed, so a reorg
    // removes Transfers the consumer already acted on. It must hear of each, once.
    const QString env = QStringLiteral("retract");
    test::WebhookRecorder hook;
    QStringList args = indexArgs(env, m_lab->devnet().url());
    args.removeAll(QStringLiteral("--exit-when-synced"));
    args << QStringLiteral("--poll-ms") << QStringLiteral("100") << QStringLiteral("--webhook")
         << hook.url().toString();
    QProcess follower;
    follower.start(QStringLiteral(FORKSCOPE_BINARY), args);
    const auto received = [&] {
        const QList<QByteArray> keys = hook.acceptedKeys();
        return QSet<QByteArray>(keys.cbegin(), keys.cend());
    };
    m_lab->sprayAll(3, 2, 12); // Transfers in the last blocks, to be reorged away
    const std::uint64_t head = m_lab->eth().blockNumber();
    QTRY_COMPARE_WITH_TIMEOUT(received(), transferKeys(0, head), 120'000);
    const QSet<QByteArray> doomed = transferKeys(head - 2, head); // the last 3 blocks'
    QVERIFY(!doomed.isEmpty());
    m_lab->reorg(3); // replaced by empty blocks: those Transfers are gone
    QSet<QByteArray> retractions;
    for (const QByteArray& k : doomed)
        retractions.insert("retract:" + k);
    const auto retracted = [&] {
        QSet<QByteArray> got;
        for (const QByteArray& k : hook.acceptedKeys())
            if (k.startsWith("retract:"))
                got.insert(k);
        return got;
    };
    QTRY_COMPARE_WITH_TIMEOUT(retracted(), retractions, 60'000);
    auto db = PgConnection::open(m_cluster.url());
    const auto reorg = db->run("t_retract_reorg",
                               "SELECT depth, delivered_outbox_rows FROM reorg_events WHERE "
                               "environment_id = $1",
                               {env.toUtf8()});
    QCOMPARE(reorg.rows(), 1);
    QCOMPARE(reorg.int64(0, 0), 3);
    QCOMPARE(reorg.int64(0, 1), qint64(doomed.size()));
    // Each retraction once, and nothing left to deliver; the delivered rows kept their text.
    qsizetype retractionDeliveries = 0;
    for (const QByteArray& k : hook.acceptedKeys())
        retractionDeliveries += k.startsWith("retract:") ? 1 : 0;
    QCOMPARE(retractionDeliveries, retractions.size());
    QCOMPARE(db->run("t_retract_pending",
                     "SELECT count(*) FROM outbox_store WHERE environment_id = $1 AND "
                     "delivered_at IS NULL",
                     {env.toUtf8()})
                 .int64(0, 0),
             0);
    QCOMPARE(db->run("t_retract_kept",
                     "SELECT count(*) FROM outbox_store WHERE environment_id = $1 AND "
                     "log_index IS NULL AND event_key LIKE 'transfer:%' AND payload LIKE "
                     "'{\"type\":\"transfer\"%'",
                     {env.toUtf8()})
                 .int64(0, 0),
             qint64(doomed.size()));
    ::kill(pid_t(follower.processId()), SIGTERM);
    QTRY_VERIFY_WITH_TIMEOUT(follower.state() == QProcess::NotRunning, 30'000);
    QVERIFY2(follower.exitCode() == 0, follower.readAllStandardError().constData());
}

void TestSharedBackfill::outboxDeliveredDuringTheBackfill()
{
    // Rows at or below the checkpoint are final once their ranges are done: the consumer
    // need not wait for the whole history. A slow node keeps the backfill open long enough
    // to see the first delivery arrive before the checkpoint reaches the head.
    test::WebhookRecorder hook;
    lab::FaultProxy slow(m_lab->devnet().url());
    slow.listen();
    slow.setLatencyMs(250);
    const QString env = QStringLiteral("early-outbox");
    const qint64 head = qint64(m_lab->eth().blockNumber());
    QProcess p;
    p.start(QStringLiteral(FORKSCOPE_BINARY),
            indexArgs(env, slow.url()) +
                QStringList{QStringLiteral("--webhook"), hook.url().toString()});
    auto db = PgConnection::open(m_cluster.url());
    QTRY_VERIFY_WITH_TIMEOUT(!hook.acceptedKeys().isEmpty(), 120'000);
    const qint64 checkpointAtFirst =
        db->run("t_early_cp",
                "SELECT block_number FROM indexer_checkpoints WHERE environment_id = $1",
                {env.toUtf8()})
            .int64(0, 0);
    QVERIFY2(checkpointAtFirst < head, qPrintable(QString::number(checkpointAtFirst)));
    QTRY_VERIFY_WITH_TIMEOUT(p.state() == QProcess::NotRunning, 180'000);
    QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
             p.readAllStandardError().constData());
    const qint64 rows = db->run("t_early_rows",
                                "SELECT count(*) FROM outbox WHERE environment_id = $1 AND "
                                "delivered_at IS NOT NULL",
                                {env.toUtf8()})
                            .int64(0, 0);
    QVERIFY(rows > 0);
    const QList<QByteArray> keys = hook.acceptedKeys();
    QCOMPARE(qint64(keys.size()), rows); // each once
    QCOMPARE(qint64(QSet<QByteArray>(keys.cbegin(), keys.cend()).size()), rows);
    QCOMPARE(QSet<QByteArray>(keys.cbegin(), keys.cend()), transferKeys(0, std::uint64_t(head)));
}

void TestSharedBackfill::anEnvironmentOfAnotherChainOrContractSetIsRefused()
{
    // The environment was recorded on another chain (a devnet since reset): a process whose
    // node serves this one must not add a second history under the same id.
    auto db = PgConnection::open(m_cluster.url());
    store::pg::ensurePgContract(*db);
    const QByteArray insert =
        "INSERT INTO environment_store (environment_id, chain_id, genesis_hash, "
        "rpc_url, created_at, contracts) VALUES ('old-chain', 31337, '0x" +
        QByteArray(64, 'a') + "', 'http://old', '2026-01-01T00:00:00.000Z', '')";
    db->exec(insert.constData());
    const test::ProcessRun run =
        test::runForkscope(indexArgs(QStringLiteral("old-chain"), m_lab->devnet().url()));
    VERIFY_ONE_ERROR_LINE(
        run, 1,
        (QStringList{QStringLiteral("chain was reset"), QStringLiteral("old-chain"),
                     QStringLiteral("Nothing was written")}));
    QCOMPARE(db->exec("SELECT count(*) FROM backfill_ranges WHERE environment_id = 'old-chain'")
                 .int64(0, 0),
             0);
    QCOMPARE(db->exec("SELECT count(*) FROM indexer_checkpoints WHERE environment_id = "
                      "'old-chain'")
                 .int64(0, 0),
             0);
    // A new environment records this node's chain.
    VERIFY_EXIT_OK(
        test::runForkscope(indexArgs(QStringLiteral("this-chain"), m_lab->devnet().url())));
    const auto genesis = m_lab->eth().blockByNumber(0);
    QVERIFY(genesis);
    const auto row = db->run("t_env_row", "SELECT chain_id, genesis_hash FROM environments WHERE "
                                          "environment_id = 'this-chain'");
    QCOMPARE(row.int64(0, 0), 31337);
    QCOMPARE(row.text(0, 1), genesis->hash.toHex().toUtf8());

    // A process naming fewer contracts would store its ranges without the other's logs.
    QStringList fewer = indexArgs(QStringLiteral("this-chain"), m_lab->devnet().url());
    fewer = fewer.mid(0, fewer.indexOf(QStringLiteral("--exit-when-synced")) + 1);
    fewer << QStringLiteral("--contract") << m_lab->contracts().first().toHex();
    const qint64 ranges =
        db->exec("SELECT count(*) FROM backfill_ranges WHERE environment_id = 'this-chain'")
            .int64(0, 0);
    VERIFY_ONE_ERROR_LINE(
        test::runForkscope(fewer), 1,
        (QStringList{QStringLiteral("leaves out ") + m_lab->contracts().last().toHex(),
                     QStringLiteral("Nothing was written")}));
    QCOMPARE(db->exec("SELECT count(*) FROM backfill_ranges WHERE environment_id = 'this-chain'")
                 .int64(0, 0),
             ranges);

    // A process decoding with an ABI would store decoded ranges among the others' raw ones.
    VERIFY_ONE_ERROR_LINE(
        test::runForkscope(
            indexArgs(QStringLiteral("this-chain"), m_lab->devnet().url())
            << QStringLiteral("--abi")
            << QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json")),
        1,
        (QStringList{QStringLiteral("decodes its logs with no ABI"),
                     QStringLiteral("same --abi FILE"), QStringLiteral("Nothing was written")}));
    QCOMPARE(db->exec("SELECT count(*) FROM backfill_ranges WHERE environment_id = 'this-chain'")
                 .int64(0, 0),
             ranges);
}

void TestSharedBackfill::reportVerifiesTheSharedIndexAgainstTheNode()
{
    const QString env = QStringLiteral("reported");
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(env, m_lab->devnet().url())));
    auto db = PgConnection::open(m_cluster.url());
    const qint64 checkpoint =
        db->run("t_cp", "SELECT block_number FROM indexer_checkpoints WHERE environment_id = $1",
                {env.toUtf8()})
            .int64(0, 0);
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = std::uint64_t(checkpoint);
    f.addresses = m_lab->contracts();
    const qsizetype nodeLogs = m_lab->eth().getLogs(f).size();

    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("report.json"));
    const auto report = [&] {
        const test::ProcessRun run =
            test::runForkscope({QStringLiteral("report"), QStringLiteral("--db"), m_cluster.url(),
                                QStringLiteral("--env"), env, QStringLiteral("--format"),
                                QStringLiteral("json"), QStringLiteral("--out"), out});
        if (!run.finished || run.exitCode != 0)
            qWarning("%s", qPrintable(run.describe()));
        QFile file(out);
        file.open(QIODevice::ReadOnly);
        return QJsonDocument::fromJson(file.readAll()).object();
    };
    QJsonObject r = report();
    QCOMPARE(r.value("database").toString(), m_cluster.url());
    QCOMPARE(r.value("environment").toObject().value("genesis_hash").toString(),
             m_lab->eth().blockByNumber(0)->hash.toHex());
    const QJsonObject cp = r.value("checkpoints").toArray().at(0).toObject();
    QCOMPARE(cp.value("block_number").toInteger(), checkpoint);
    QCOMPARE(cp.value("verification").toObject().value("status").toString(),
             QStringLiteral("canonical"));
    QCOMPARE(r.value("counts").toObject().value("logs").toInteger(), nodeLogs);
    QCOMPARE(r.value("counts").toObject().value("outbox").toObject().value("pending").toInteger(),
             r.value("counts").toObject().value("transfers").toInteger());
    const QJsonObject invariants = r.value("invariants").toObject();
    QVERIFY2(invariants.value("state").toString() == QLatin1String("hold"),
             qPrintable(invariants.value("summary").toString()));
    QCOMPARE(invariants.value("contracts_checked").toArray().size(), m_lab->contracts().size());
    const QStringList verify{QStringLiteral("verify"),
                             QStringLiteral("--db"),
                             m_cluster.url(),
                             QStringLiteral("--env"),
                             env,
                             QStringLiteral("--rpc"),
                             m_lab->devnet().url().toString()};
    const test::ProcessRun clean = test::runForkscope(verify);
    VERIFY_EXIT_OK(clean);
    QVERIFY2(clean.out.contains(QStringLiteral("verdict: clean: blocks 0..%1").arg(checkpoint)),
             qPrintable(clean.out));

    // The check is real: a log lost below the checkpoint is found, against the node.
    const auto lost = db->run("t_lose_one",
                              "DELETE FROM log_store WHERE (environment_id, block_number, "
                              "log_index) = (SELECT environment_id, block_number, log_index FROM "
                              "log_store WHERE environment_id = $1 ORDER BY block_number DESC "
                              "LIMIT 1) RETURNING block_number, log_index",
                              {env.toUtf8()});
    QCOMPARE(lost.rows(), 1);
    r = report();
    const QJsonObject violated = r.value("invariants").toObject();
    QCOMPARE(violated.value("state").toString(), QStringLiteral("violated"));
    const QString missing = QStringLiteral("log %1/%2 on the node is missing from the database")
                                .arg(lost.int64(0, 0))
                                .arg(lost.int64(0, 1));
    QVERIFY2(violated.value("violations").toVariant().toStringList().contains(missing),
             qPrintable(violated.value("summary").toString()));
    // And `verify` finds the hole at that block, block by block against the node.
    const test::ProcessRun holed = test::runForkscope(verify);
    QVERIFY2(holed.finished && holed.exitCode == 1, qPrintable(holed.describe()));
    QVERIFY2(holed.err.contains(QStringLiteral("1 hole in environment %1, the first at block %2")
                                    .arg(env)
                                    .arg(lost.int64(0, 0))),
             qPrintable(holed.describe()));
    const QString repairHint =
        QStringLiteral("run `forkscope repair --db %1 --env %2 --rpc %3 --from %4`")
            .arg(m_cluster.url(), env, m_lab->devnet().url().toString())
            .arg(lost.int64(0, 0));
    QVERIFY2(holed.out.contains(repairHint), qPrintable(holed.out));

    // The repair it names: rolled back to the block below, indexed again from the node, in
    // the one process holding the head lock; the index is whole again.
    const test::ProcessRun repaired = test::runForkscope(
        {QStringLiteral("repair"), QStringLiteral("--db"), m_cluster.url(), QStringLiteral("--env"),
         env, QStringLiteral("--rpc"), m_lab->devnet().url().toString(), QStringLiteral("--from"),
         QString::number(lost.int64(0, 0))});
    VERIFY_EXIT_OK(repaired);
    QVERIFY2(
        repaired.out.contains(
            QStringLiteral("rolled back to block %1 in one transaction").arg(lost.int64(0, 0) - 1)),
        qPrintable(repaired.out));
    QCOMPARE(db->run("t_repair_event",
                     "SELECT count(*) FROM reorg_events WHERE environment_id = $1 AND reason = "
                     "'repair'",
                     {env.toUtf8()})
                 .int64(0, 0),
             1);
    QCOMPARE(db->run("t_cp",
                     "SELECT block_number FROM indexer_checkpoints WHERE environment_id = $1",
                     {env.toUtf8()})
                 .int64(0, 0),
             checkpoint);
    VERIFY_EXIT_OK(test::runForkscope(verify));
    QCOMPARE(report().value("invariants").toObject().value("state").toString(),
             QStringLiteral("hold"));
    // A --from outside the index is refused before anything changes.
    VERIFY_ONE_ERROR_LINE(
        test::runForkscope({QStringLiteral("repair"), QStringLiteral("--db"), m_cluster.url(),
                            QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                            m_lab->devnet().url().toString(), QStringLiteral("--from"),
                            QString::number(checkpoint + 5)}),
        1, (QStringList{QStringLiteral("nothing was changed")}));
}

// Ranges planned up to a head the chain then loses (anvil_rollback above the checkpoint: no
// stored block is wrong, so nothing is rolled back), one of them committed above the
// checkpoint by another writer. Every writer must index up to the shorter head and say
// synced, not stand by for blocks the chain no longer has; once the chain grows again on
// another branch, the range stored from the old one is fetched again. Writers in this
// process, stepped in turn: no timing decides what happens.
void TestSharedBackfill::aChainShorterThanThePlanIsIndexedToItsHead()
{
    test::IndexerLab lab; // its own anvil: this chain is rolled back
    lab.deployToken(QStringLiteral("CCC"));
    lab.sprayAll(8, 3, 6);
    const QString env = QStringLiteral("shorter");
    InProcessWriter a(lab, m_cluster.url(), env, QStringLiteral("writer-a"));
    QVERIFY(stepUntilSynced({&a}, 100));
    const std::uint64_t base = lab.eth().blockNumber();
    QCOMPARE(a.indexer.status().checkpoint.value_or(0), base);

    // Far behind again: ranges of 4 planned up to base + 40. C commits the first (the
    // checkpoint moves to base + 4), holding the second; B commits the third
    // (base+9..base+12, above the checkpoint), holding the fourth, fetched. C stops, the
    // range it held going back.
    lab.mine(40);
    auto c =
        std::make_unique<InProcessWriter>(lab, m_cluster.url(), env, QStringLiteral("writer-c"));
    QCOMPARE(c->indexer.step().checkpoint.value_or(0), base + 4);
    InProcessWriter b(lab, m_cluster.url(), env, QStringLiteral("writer-b"));
    QCOMPARE(b.indexer.step().checkpoint.value_or(0), base + 4);
    c.reset();
    auto db = PgConnection::open(m_cluster.url());
    // How many of the ranges above `base` match `where` (a statement name per condition).
    QHash<QByteArray, QByteArray> names;
    const auto ranges = [&](const QByteArray& where) {
        const QByteArray sql = "SELECT count(*) FROM backfill_ranges WHERE environment_id = $1 "
                               "AND from_block > $2 AND " +
                               where;
        if (!names.contains(sql))
            names.insert(sql, "t_ranges_" + QByteArray::number(names.size()));
        const QByteArray name = names.value(sql);
        return db
            ->run(name.constData(), sql.constData(),
                  {env.toUtf8(), QByteArray::number(qulonglong(base))})
            .int64(0, 0);
    };
    QCOMPARE(ranges("status = 'done' AND from_block = $2 + 9 AND to_block = $2 + 12"), 1);
    QCOMPARE(ranges("status = 'running' AND from_block = $2 + 13"), 1);
    QCOMPARE(ranges("to_block = $2 + 40"), 1);

    // The chain ends at base + 6 now: inside the range above the checkpoint, below the one
    // committed.
    lab::ReorgInjector::rollback(lab.rpc(), 34);
    const std::uint64_t shorter = base + 6;
    QCOMPARE(lab.eth().blockNumber(), shorter);
    QVERIFY2(stepUntilSynced({&a, &b}),
             qPrintable(QStringLiteral("A: %1 (checkpoint %2); B: %3")
                            .arg(a.indexer.status().message)
                            .arg(a.indexer.status().checkpoint.value_or(0))
                            .arg(b.indexer.status().message)));
    QCOMPARE(a.indexer.status().checkpoint.value_or(0), shorter);
    QCOMPARE(b.indexer.status().checkpoint.value_or(0), shorter);
    // The plan ends at the range stored above the head: nothing pending past it, nothing
    // held, and the stored range stays (its blocks may come back; it is checked when the
    // checkpoint reaches it).
    QCOMPARE(ranges("status IN ('pending', 'failed') AND to_block > $2 + 12"), 0);
    QCOMPARE(ranges("status = 'running'"), 0);
    QCOMPARE(ranges("status = 'done' AND from_block = $2 + 9"), 1);
    // The range B held past the head (fetched before the rollback) went back as a plan
    // change: not committed from the branch it was fetched on, nor counted as a failure.
    QCOMPARE(ranges("status = 'done' AND from_block > $2 + 12"), 0);
    QCOMPARE(b.indexer.status().timeouts + b.indexer.status().fetchFailures, 0);

    // Another branch grows past the old plan's first ranges: the range B stored from the old
    // branch does not chain on, and is fetched again.
    lab.sprayAll(12, 3, 6);
    const std::uint64_t head = lab.eth().blockNumber();
    QVERIFY(head > base + 12);
    QVERIFY(stepUntilSynced({&a, &b}));
    const auto onNode = lab.eth().blockByNumber(head);
    QVERIFY(onNode);
    const auto cp = db->run("t_shorter_cp",
                            "SELECT block_number, block_hash FROM indexer_checkpoints WHERE "
                            "environment_id = $1",
                            {env.toUtf8()});
    QCOMPARE(cp.int64(0, 0), qint64(head));
    QCOMPARE(cp.text(0, 1), onNode->hash.toHex().toLatin1());
    QCOMPARE(db->run("t_shorter_reorgs",
                     "SELECT count(*) FROM reorg_events WHERE environment_id = $1", {env.toUtf8()})
                 .int64(0, 0),
             0);
    // Every log of the node's chain once, and no other.
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = head;
    f.addresses = lab.contracts();
    QSet<QString> expected;
    for (const chain::LogEntry& l : lab.eth().getLogs(f))
        expected.insert(
            QStringLiteral("%1/%2/%3").arg(l.blockNumber).arg(l.logIndex).arg(l.blockHash.toHex()));
    const auto [got, rows] = storedLogKeys(*db, env, "block_hash");
    QCOMPARE(rows, expected.size());
    QCOMPARE(got, expected);
    QVERIFY(expected.size() > 40);
}

// A writer stalled past its lease (here: it never renews) keeps a fetched range in hand;
// another writer takes that range over and stores it. When the stalled one commits it at
// last, the blocks are already stored: that is the range taken over, looked at again
// (CheckpointMovedError, nothing written), never a failure that stops the writer.
void TestSharedBackfill::aRangeStoredByWhoeverTookItOverIsNotStoredAgain()
{
    test::IndexerLab lab;
    lab.deployToken(QStringLiteral("DDD"));
    lab.sprayAll(6, 3, 6);
    lab.mine(20);
    const QString env = QStringLiteral("taken-over");
    InProcessWriter slow(lab, m_cluster.url(), env, QStringLiteral("writer-slow"),
                         std::chrono::milliseconds(300));
    InProcessWriter quick(lab, m_cluster.url(), env, QStringLiteral("writer-quick"));
    QCOMPARE(slow.indexer.step().checkpoint.value_or(0), 3u); // holds 4-7 now
    auto db = PgConnection::open(m_cluster.url());
    const auto stored = [&] {
        return db->run("t_taken_done",
                       "SELECT owner IS NULL AND status = 'done' FROM range_store WHERE "
                       "environment_id = $1 AND from_block = 4",
                       {env.toUtf8()})
                   .text(0, 0) == "t";
    };
    QTRY_VERIFY_WITH_TIMEOUT((quick.indexer.step(), stored()), 30'000);
    QVERIFY(quick.indexer.status().rangesTakenOver >= 1);

    // What the stalled writer fetched for 4-7, as its fetch threads would have.
    indexer::VerifiedBatch batch;
    for (std::uint64_t n = 4; n <= 7; ++n)
        batch.blocks << *lab.eth().blockByNumber(n);
    rpc::LogFilter f;
    f.fromBlock = 4;
    f.toBlock = 7;
    f.addresses = lab.contracts();
    batch.logs = lab.eth().getLogs(f);
    QVERIFY(!batch.logs.isEmpty());
    indexer::CommitPlacement placement;
    placement.expected = slow.store->checkpoint();
    placement.range = indexer::RangeClaim{4, 7, 1, {}, false};
    placement.policyVersion =
        InProcessWriter::config(lab, m_cluster.url(), env, {}).policyVersion();
    placement.generation = indexer::kProjectionGeneration;
    QVERIFY_THROWS_EXCEPTION(indexer::CheckpointMovedError, slow.store->commit(batch, placement));

    // Both go on to the head, every log once.
    QVERIFY(stepUntilSynced({&slow, &quick}, 100));
    const std::uint64_t head = lab.eth().blockNumber();
    f.fromBlock = 0;
    f.toBlock = head;
    QCOMPARE(db->run("t_taken_logs", "SELECT count(*) FROM logs WHERE environment_id = $1",
                     {env.toUtf8()})
                 .int64(0, 0),
             qint64(lab.eth().getLogs(f).size()));
}

QTEST_GUILESS_MAIN(TestSharedBackfill)
#include "tst_sharedbackfill.moc"
