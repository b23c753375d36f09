// The same indexer behaviour on both stores, from the same test code with the backend as a
// data row (issue #17): `forkscope index` into a SQLite file and into a shared PostgreSQL
// index, then what a user does next: verify against the node, read the report, deliver the
// outbox exactly once per key, find and repair a hole, and roll back a reorg. Every check
// reads the contract's surface through store::ContractReader, so the assertions cannot
// differ between the rows. Real anvil, real throwaway cluster.
#include "IndexerLab.h"
#include "LocalApiClient.h"
#include "WebhookRecorder.h"
#include "health/NodeState.h"
#include "lab/FaultProxy.h"
#include "lab/PgLab.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContractReader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <boost/multiprecision/cpp_int.hpp>

using namespace forkscope;

namespace {
// One store, as the commands take it (--db) and as a test reads it.
struct Backend
{
    explicit Backend(QString url) : db(std::move(url)) {}
    QString db;
    std::unique_ptr<store::Database> sqlite;
    std::unique_ptr<store::pg::PgConnection> pg;
    std::unique_ptr<store::ContractReader> reader;

    // A fresh connection each time: reads see what the processes committed since.
    store::ContractReader& open()
    {
        reader.reset();
        sqlite.reset();
        pg.reset();
        if (store::pg::isPostgresUrl(db)) {
            pg = store::pg::PgConnection::open(db);
            reader = std::make_unique<store::pg::PgContractReader>(*pg);
        } else {
            sqlite = store::Database::open(db);
            reader = std::make_unique<store::SqliteContractReader>(*sqlite);
        }
        return *reader;
    }
    void close()
    {
        reader.reset();
        sqlite.reset();
        pg.reset();
    }
};
} // namespace

class TestBackends : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void indexedDataIsTheNodesAndVerifies_data() { backends(); }
    void indexedDataIsTheNodesAndVerifies();
    void outboxDeliveredOncePerKey_data();
    void outboxDeliveredOncePerKey();
    void aFaultyNodeStillGivesEveryLogOnce_data();
    void aFaultyNodeStillGivesEveryLogOnce();
    void aBlockOnTheCapStopsLoudlyAndResumes_data() { backends(); }
    void aBlockOnTheCapStopsLoudlyAndResumes();
    void aLaggingNodeNeverCausesARollback_data() { backends(); }
    void aLaggingNodeNeverCausesARollback();
    void decodedEventsReadTheSame_data() { backends(); }
    void decodedEventsReadTheSame();
    void theLocalApiAnswersFromTheStore_data() { backends(); }
    void theLocalApiAnswersFromTheStore();
    void aRefusedRowIsMarkedFailedNotRetried_data() { backends(); }
    void aRefusedRowIsMarkedFailedNotRetried();
    void aHoleIsFoundAndRepaired_data() { backends(); }
    void aHoleIsFoundAndRepaired();
    void aKilledIndexerLeavesNothingHalfWritten_data();
    void aKilledIndexerLeavesNothingHalfWritten();
    // Last: it reorganises the suite's chain.
    void aReorgIsRolledBackAndRecorded_data();
    void aReorgIsRolledBackAndRecorded();
    void aReorgDeeperThanTheLimitChangesNothing_data() { backends(); }
    void aReorgDeeperThanTheLimitChangesNothing();

private:
    void backends();
    QStringList indexArgs(const QString& db, const QString& env) const;
    qint64 checkpointOf(store::ContractReader& r, const QString& env) const;
    // The environment's checkpoint is the node's head block (its height and its hash).
    bool onHead(Backend& b, const QString& env);
    // Every log of the contracts up to the checkpoint, once, as the node has it, read
    // through the `logs` surface; `rows` says how many.
    void expectEveryLogOnce(Backend& b, const QString& env, qint64& rows);

    std::unique_ptr<test::IndexerLab> m_lab;
    lab::PgLab m_cluster;
    qint64 m_blockOnTheCap = -1; // a block with more Transfers than a cap of 50, once made
    // What the sqlite row of decodedEventsReadTheSame read, for the postgresql row.
    QStringList m_decodedOnSqlite;
};

void TestBackends::initTestCase()
{
    m_lab = std::make_unique<test::IndexerLab>();
    lab::DemoToken& aaa = m_lab->deployToken(QStringLiteral("AAA"));
    m_lab->deployToken(QStringLiteral("BBB"));
    m_lab->sprayAll(12, 3, 10);
    // approve(holder 2, 77): a log of the contract that is not a Transfer.
    aaa.send(QByteArray::fromHex("095ea7b3") + QByteArray(12, '\0') +
             lab::DemoToken::sprayHolder(2).toByteArray() +
             chain::u256::toBigEndian32(chain::U256(77)));
    m_cluster.start();
}

void TestBackends::backends()
{
    QTest::addColumn<QString>("db");
    QTest::newRow("sqlite") << m_lab->tempPath(QStringLiteral("backends.sqlite"));
    QTest::newRow("postgresql") << m_cluster.url();
}

QStringList TestBackends::indexArgs(const QString& db, const QString& env) const
{
    return QStringList{QStringLiteral("index"),
                       QStringLiteral("--rpc"),
                       m_lab->devnet().url().toString(),
                       QStringLiteral("--db"),
                       db,
                       QStringLiteral("--env"),
                       env,
                       QStringLiteral("--batch-size"),
                       QStringLiteral("8")} +
           m_lab->contractArgs();
}

qint64 TestBackends::checkpointOf(store::ContractReader& r, const QString& env) const
{
    const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
    return cp ? cp->number : -1;
}

bool TestBackends::onHead(Backend& b, const QString& env)
{
    try {
        store::ContractReader& r = b.open();
        const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
        const auto head = m_lab->eth().latestBlock();
        return cp && head && cp->number == qint64(head->number) && cp->hash == head->hash.toHex();
    } catch (const std::exception&) {
        return false; // not created yet
    }
}

void TestBackends::expectEveryLogOnce(Backend& b, const QString& env, qint64& rows)
{
    store::ContractReader& r = b.open();
    const qint64 cp = checkpointOf(r, env);
    QVERIFY(cp >= 0);
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = std::uint64_t(cp);
    f.addresses = m_lab->contracts();
    const auto nodeLogs = m_lab->eth().getLogs(f);
    QSet<QString> expected;
    for (const auto& l : nodeLogs)
        expected << QStringLiteral("%1/%2/%3")
                        .arg(l.blockNumber)
                        .arg(l.logIndex)
                        .arg(l.transactionHash.toHex());
    QSet<QString> got;
    rows = 0;
    for (auto q = r.query(QStringLiteral("SELECT block_number, log_index, tx_hash FROM logs WHERE "
                                         "environment_id = ?"),
                          {env});
         q->next(); ++rows)
        got << QStringLiteral("%1/%2/%3")
                   .arg(q->value(0).toLongLong())
                   .arg(q->value(1).toLongLong())
                   .arg(q->value(2).toString());
    QCOMPARE(rows, qint64(nodeLogs.size()));
    QCOMPARE(got, expected);
}

void TestBackends::aFaultyNodeStillGivesEveryLogOnce_data()
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("fault");
    for (const char* fault : {"10% errors", "silent cap of 20"}) {
        QTest::addRow("sqlite, %s", fault)
            << m_lab->tempPath(QStringLiteral("backends.sqlite")) << QString::fromLatin1(fault);
        QTest::addRow("postgresql, %s", fault) << m_cluster.url() << QString::fromLatin1(fault);
    }
}

// Behind a node that fails one request in ten, or silently cuts eth_getLogs results at 20
// logs (as some providers do), the index still holds every log once: failed ranges are
// fetched again, and a result of exactly the cap is halved until it is under it.
void TestBackends::aFaultyNodeStillGivesEveryLogOnce()
{
    QFETCH(QString, db);
    QFETCH(QString, fault);
    const bool capped = fault.startsWith(QLatin1String("silent cap"));
    const QString env = capped ? QStringLiteral("capped") : QStringLiteral("erring");
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setSeed(42);
    if (capped)
        proxy.setLogCap(20, lab::FaultProxy::CapMode::Silent);
    else
        proxy.setErrorRate(0.10);
    QStringList args{QStringLiteral("index"),
                     QStringLiteral("--rpc"),
                     proxy.url().toString(),
                     QStringLiteral("--db"),
                     db,
                     QStringLiteral("--env"),
                     env,
                     QStringLiteral("--exit-when-synced"),
                     QStringLiteral("--batch-size"),
                     capped ? QStringLiteral("1000") : QStringLiteral("4")};
    if (capped)
        args << QStringLiteral("--log-cap") << QStringLiteral("20");
    VERIFY_EXIT_OK(test::runForkscope(args + m_lab->contractArgs()));
    if (capped)
        QVERIFY(proxy.cappedReplies() > 0);
    else
        QVERIFY(proxy.injectedErrors() > 0);
    Backend b(db);
    QCOMPARE(checkpointOf(b.open(), env), qint64(m_lab->eth().blockNumber()));
    qint64 rows = 0;
    expectEveryLogOnce(b, env, rows);
    b.close();
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("verify"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                       m_lab->devnet().url().toString()}));
}

// One block holds more logs than the node's silent cap: no range can be proven complete,
// so the index stops there in one line naming the block, with everything below committed
// and nothing at or above it visible; with the cap gone, the same index completes.
void TestBackends::aBlockOnTheCapStopsLoudlyAndResumes()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("on-the-cap");
    if (m_blockOnTheCap < 0) {
        m_lab->tokens().first().spray(60, 0, 60);
        m_blockOnTheCap = qint64(m_lab->eth().blockNumber());
        m_lab->sprayAll(2, 2, 10);
    }
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLogCap(50, lab::FaultProxy::CapMode::Silent);
    QStringList args{QStringLiteral("index"),
                     QStringLiteral("--rpc"),
                     proxy.url().toString(),
                     QStringLiteral("--db"),
                     db,
                     QStringLiteral("--env"),
                     env,
                     QStringLiteral("--exit-when-synced"),
                     QStringLiteral("--batch-size"),
                     QStringLiteral("4")};
    const test::ProcessRun run =
        test::runForkscope(args + QStringList{QStringLiteral("--log-cap"), QStringLiteral("50")} +
                           m_lab->contractArgs());
    VERIFY_ONE_ERROR_LINE(
        run, 1,
        (QStringList{QStringLiteral("suspected truncation: block %1").arg(m_blockOnTheCap)}));
    Backend b(db);
    store::ContractReader& r = b.open();
    const qint64 stopped = checkpointOf(r, env);
    QVERIFY2(stopped >= 0 && stopped < m_blockOnTheCap, qPrintable(QString::number(stopped)));
    for (const char* view : {"blocks", "logs"})
        QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ? AND "
                                         "block_number >= ?")
                              .arg(QLatin1String(view)),
                          {env, m_blockOnTheCap}),
                 qint64(0));
    b.close();
    // The node without its cap: the same index completes, every log once.
    args[2] = m_lab->devnet().url().toString();
    VERIFY_EXIT_OK(test::runForkscope(args + m_lab->contractArgs()));
    QCOMPARE(checkpointOf(b.open(), env), qint64(m_lab->eth().blockNumber()));
    qint64 rows = 0;
    expectEveryLogOnce(b, env, rows);
    b.close();
}

// A node that lags six blocks behind the checkpoint (a load balancer's stale replica) is
// not a reorg: the follower waits, changes nothing, and goes on once the node catches up.
void TestBackends::aLaggingNodeNeverCausesARollback()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("lagging");
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    const auto state = [&] {
        store::ContractReader& r = b.open();
        const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
        QStringList out{cp ? QStringLiteral("%1 %2").arg(cp->number).arg(cp->hash) : QString()};
        for (const char* table : {"blocks", "logs", "outbox", "reorg_events"})
            out << QStringLiteral("%1 %2")
                       .arg(QLatin1String(table))
                       .arg(r.scalar(
                           QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ?")
                               .arg(QLatin1String(table)),
                           {env}));
        b.close();
        return out;
    };
    const QStringList before = state();

    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLagBlocks(6);
    QStringList args = indexArgs(db, env) << QStringLiteral("--poll-ms") << QStringLiteral("100");
    args[2] = proxy.url().toString();
    QProcess follower;
    follower.start(QStringLiteral(FORKSCOPE_BINARY), args);
    QVERIFY(follower.waitForStarted());
    QTest::qWait(3000); // thirty rounds against the lagging view
    QCOMPARE(follower.state(), QProcess::Running);
    QCOMPARE(state(), before);
    follower.terminate();
    const test::ProcessRun stopped = test::waitForProcess(follower, 20'000);
    VERIFY_EXIT_OK(stopped);
    QCOMPARE(state(), before);

    // The node catches up: indexing goes on where it was, with no rollback.
    proxy.setLagBlocks(0);
    m_lab->sprayAll(2, 2, 10);
    VERIFY_EXIT_OK(test::runForkscope(args << QStringLiteral("--exit-when-synced")));
    QCOMPARE(checkpointOf(b.open(), env), qint64(m_lab->eth().blockNumber()));
    QCOMPARE(b.reader->scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                             "environment_id = ?"),
                              {env}),
             qint64(0));
    qint64 rows = 0;
    expectEveryLogOnce(b, env, rows);
    b.close();
}

void TestBackends::indexedDataIsTheNodesAndVerifies()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("same");
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    QCOMPARE(checkpointOf(b.open(), env), qint64(m_lab->eth().blockNumber()));
    qint64 rows = 0;
    expectEveryLogOnce(b, env, rows);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(rows > 0);
    b.close();
    // The engine's own checks agree: verify is clean, the report's invariants hold.
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("verify"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                       m_lab->devnet().url().toString()}));
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("r.json"));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("report"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--format"),
                                       QStringLiteral("json"), QStringLiteral("--out"), out}));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(report.value("invariants").toObject().value("state").toString(),
             QStringLiteral("hold"));
    QCOMPARE(report.value("counts").toObject().value("logs").toInteger(), rows);
    QCOMPARE(report.value("checkpoints")
                 .toArray()
                 .at(0)
                 .toObject()
                 .value("verification")
                 .toObject()
                 .value("status")
                 .toString(),
             QStringLiteral("canonical"));
}

// `forkscope index --abi`: each log's event name and decoded arguments, read through the
// contract's `logs` view, are the same text on both stores, and agree with the Transfer
// projection. A bad ABI file is refused in one line before anything is written.
void TestBackends::decodedEventsReadTheSame()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("abi");
    VERIFY_EXIT_OK(test::runForkscope(
        indexArgs(db, env) << QStringLiteral("--exit-when-synced") << QStringLiteral("--abi")
                           << QStringLiteral(FORKSCOPE_SOURCE_DIR
                                             "/resources/contracts/DemoToken.json")));
    Backend b(db);
    store::ContractReader& r = b.open();
    QHash<QString, QStringList> transfers; // "block/index" -> from, to, value
    for (auto q = r.query(QStringLiteral("SELECT block_number, log_index, from_addr, to_addr, "
                                         "value FROM transfer_events WHERE environment_id = ?"),
                          {env});
         q->next();)
        transfers.insert(
            QStringLiteral("%1/%2").arg(q->value(0).toLongLong()).arg(q->value(1).toLongLong()),
            {q->value(2).toString(), q->value(3).toString(), q->value(4).toString()});
    QStringList decoded;
    int approvals = 0;
    for (auto q = r.query(QStringLiteral("SELECT block_number, log_index, event_name, args_json, "
                                         "decode_error FROM logs WHERE environment_id = ? ORDER "
                                         "BY block_number, log_index"),
                          {env});
         q->next();) {
        const QString key =
            QStringLiteral("%1/%2").arg(q->value(0).toLongLong()).arg(q->value(1).toLongLong());
        const QString name = q->value(2).toString();
        const QJsonObject args = QJsonDocument::fromJson(q->value(3).toString().toUtf8()).object();
        QVERIFY2(q->value(4).isNull(), qPrintable(key + ": " + q->value(4).toString()));
        if (name == QLatin1String("Approval")) {
            ++approvals;
            QCOMPARE(args.value("value").toString(), QStringLiteral("77"));
        } else {
            QCOMPARE(name, QStringLiteral("Transfer"));
            QVERIFY2(transfers.contains(key), qPrintable(key));
            QCOMPARE((QStringList{args.value("from").toString(), args.value("to").toString(),
                                  args.value("value").toString()}),
                     transfers.value(key));
        }
        decoded << key + ' ' + name + ' ' + q->value(3).toString();
    }
    QCOMPARE(approvals, 1);
    QCOMPARE(decoded.size(), transfers.size() + 1);
    b.close();
    const QString refused = QStringLiteral("abi-refused");
    const QString bad = m_lab->tempPath(QStringLiteral("bad.abi.json"));
    QFile badFile(bad);
    QVERIFY(badFile.open(QIODevice::WriteOnly));
    badFile.write(R"([{"type":"event","name":"E","inputs":"nope"}])");
    badFile.close();
    VERIFY_ONE_ERROR_LINE(test::runForkscope(indexArgs(db, refused)
                                             << QStringLiteral("--exit-when-synced")
                                             << QStringLiteral("--abi") << bad),
                          2, (QStringList{QStringLiteral("--abi"), bad}));
    QCOMPARE(checkpointOf(b.open(), refused), qint64(-1));
    b.close();
    // The same bytes on both stores.
    if (QLatin1String(QTest::currentDataTag()) == QLatin1String("sqlite"))
        m_decodedOnSqlite = decoded;
    else if (!m_decodedOnSqlite.isEmpty())
        QCOMPARE(decoded, m_decodedOnSqlite);

    // A repair must decode the blocks it fetches again as the rest were: without the ABI it
    // is refused before anything changes; with it, the repaired blocks read as before.
    const qint64 checkpoint = checkpointOf(b.open(), env);
    b.close();
    const QStringList repair{QStringLiteral("repair"),
                             QStringLiteral("--db"),
                             db,
                             QStringLiteral("--env"),
                             env,
                             QStringLiteral("--rpc"),
                             m_lab->devnet().url().toString(),
                             QStringLiteral("--from"),
                             QString::number(checkpoint - 4)};
    const test::ProcessRun withoutAbi = test::runForkscope(repair);
    VERIFY_ONE_ERROR_LINE(withoutAbi, 1,
                          (QStringList{QStringLiteral("--abi"), QStringLiteral("othing was")}));
    QCOMPARE(checkpointOf(b.open(), env), checkpoint);
    const auto repairsOf = [&env](store::ContractReader& reader) {
        auto q = reader.query(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                             "environment_id = ? AND reason = 'repair'"),
                              {env});
        return q->next() ? q->value(0).toLongLong() : -1;
    };
    QCOMPARE(repairsOf(*b.reader), qint64(0));
    b.close();
    VERIFY_EXIT_OK(test::runForkscope(
        repair +
        QStringList{QStringLiteral("--abi"),
                    QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json")}));
    store::ContractReader& again = b.open();
    QCOMPARE(checkpointOf(again, env), checkpoint);
    QCOMPARE(repairsOf(again), qint64(1));
    QStringList afterRepair;
    for (auto q = again.query(QStringLiteral("SELECT block_number, log_index, event_name, "
                                             "args_json FROM logs WHERE environment_id = ? ORDER "
                                             "BY block_number, log_index"),
                              {env});
         q->next();)
        afterRepair << QStringLiteral("%1/%2 %3 %4")
                           .arg(q->value(0).toLongLong())
                           .arg(q->value(1).toLongLong())
                           .arg(q->value(2).toString(), q->value(3).toString());
    QCOMPARE(afterRepair, decoded);
}

// `forkscope index --metrics-port P` on either store: the JSON-RPC methods and /metrics
// answer what the store holds (the same reads, through the contract's surface), and node
// health's figures are there; on a shared index no per-process counter is made up.
void TestBackends::theLocalApiAnswersFromTheStore()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("api");
    const quint16 port = lab::Devnet::findFreePort();
    QProcess index;
    index.start(QStringLiteral(FORKSCOPE_BINARY),
                indexArgs(db, env)
                    << QStringLiteral("--metrics-port") << QString::number(port)
                    << QStringLiteral("--poll-ms") << QStringLiteral("100")
                    << QStringLiteral("--check-interval-ms") << QStringLiteral("100"));
    QVERIFY(index.waitForStarted());
    const auto stop = qScopeGuard([&index] {
        index.terminate();
        if (!index.waitForFinished(20'000))
            index.kill();
    });
    const QUrl api(QStringLiteral("http://127.0.0.1:%1/").arg(port));
    const qint64 head = qint64(m_lab->eth().blockNumber());
    QTRY_COMPARE_WITH_TIMEOUT(test::apiCall(api, QStringLiteral("getCheckpoint"))
                                  .value("result")
                                  .toObject()
                                  .value("number")
                                  .toInteger(-1),
                              head, 30'000);

    Backend b(db);
    store::ContractReader& r = b.open();
    const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
    QVERIFY(cp);
    const QJsonObject checkpoint =
        test::apiCall(api, QStringLiteral("getCheckpoint")).value("result").toObject();
    QCOMPARE(checkpoint.value("hash").toString(), cp->hash);
    QCOMPARE(checkpoint.value("generation").toInteger(), cp->generation);
    QCOMPARE(checkpoint.value("startBlock").toInteger(), cp->startBlock);
    QVERIFY2(checkpoint.value("updatedAt").toString().endsWith(QLatin1Char('Z')),
             qPrintable(checkpoint.value("updatedAt").toString()));
    const QJsonObject latest =
        test::apiCall(api, QStringLiteral("getLatestBlock")).value("result").toObject();
    QCOMPARE(latest.value("number").toInteger(), head);
    QCOMPARE(latest.value("hash").toString(), m_lab->eth().blockByNumber(head)->hash.toHex());
    QCOMPARE(test::apiCall(api, QStringLiteral("blockIsValid"), {cp->hash}).value("result"),
             QJsonValue(true));
    // Balances: the view's rows for the first token, holder by holder.
    const QString token = m_lab->contracts().first().toHex();
    QHash<QString, QString> stored;
    for (auto q = r.query(QStringLiteral("SELECT holder, balance FROM token_balances WHERE "
                                         "environment_id = ? AND contract = ?"),
                          {env, token});
         q->next();)
        stored.insert(q->value(0).toString(), q->value(1).toString());
    QVERIFY(!stored.isEmpty());
    QHash<QString, QString> served;
    for (const QJsonValue& v :
         test::apiCall(api, QStringLiteral("getBalances"), {token}).value("result").toArray())
        served.insert(v.toObject().value("holder").toString(),
                      v.toObject().value("balance").toString());
    QCOMPARE(served, stored);
    const QString holder = stored.constBegin().key();
    QCOMPARE(test::apiCall(api, QStringLiteral("getBalances"), {token, holder})
                 .value("result")
                 .toObject()
                 .value("balance")
                 .toString(),
             stored.value(holder));

    // /metrics: the format holds, and the figures are the store's and the node's.
    const qint64 pending = r.scalar(QStringLiteral("SELECT count(*) FROM outbox WHERE "
                                                   "environment_id = ? AND delivered_at IS NULL"),
                                    {env});
    b.close();
    QHash<QString, double> samples;
    const QString node = m_lab->devnet().url().toString();
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            samples.clear();
            const test::HttpResult m = test::http(QUrl(api.toString() + "metrics"));
            const QStringList problems = test::checkPrometheusText(m.body, &samples);
            if (!problems.isEmpty())
                qWarning("%s", qPrintable(problems.join('\n')));
            return m.status == 200 && problems.isEmpty() &&
                   samples.value("forkscope_head_block") == double(head) &&
                   samples.contains("forkscope_node_state{node=\"" + node + "\"}");
        }(),
        10'000);
    QCOMPARE(samples.value("forkscope_checkpoint_block"), double(head));
    QCOMPARE(samples.value("forkscope_cursor_lag_blocks"), 0.0);
    QCOMPARE(samples.value("forkscope_outbox_pending"), double(pending));
    QVERIFY(pending > 0);
    QCOMPARE(samples.value("forkscope_node_state{node=\"" + node + "\"}"),
             double(int(health::NodeState::CaughtUp)));
    QCOMPARE(samples.value("forkscope_reorgs_total{reason=\"hash mismatch\"}"), 0.0);
    // The SQLite indexer's own counters, and none made up for a shared index's process.
    QCOMPARE(samples.contains("forkscope_logs_committed_total"),
             QLatin1String(QTest::currentDataTag()) == QLatin1String("sqlite"));
}

// A receiver that refuses a row for good (HTTP 422): that row is marked failed with the
// reason and never sent again; every other row is delivered once, in the outbox's order.
void TestBackends::aRefusedRowIsMarkedFailedNotRetried()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("refused-row");
    test::WebhookRecorder hook({422});
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env)
                                      << QStringLiteral("--exit-when-synced")
                                      << QStringLiteral("--webhook") << hook.url().toString()
                                      << QStringLiteral("--webhook-batch") << QStringLiteral("1")));
    Backend b(db);
    store::ContractReader& r = b.open();
    const auto count = [&](const QString& where) {
        return r.scalar(
            QStringLiteral("SELECT count(*) FROM outbox WHERE environment_id = ? ") + where, {env});
    };
    const qint64 rows = count(QString());
    QVERIFY(rows > 1);
    QCOMPARE(count(QStringLiteral("AND failed_at IS NOT NULL AND delivered_at IS NULL AND "
                                  "last_error LIKE '%HTTP 422%'")),
             qint64(1));
    QCOMPARE(count(QStringLiteral("AND delivered_at IS NOT NULL")), rows - 1);
    QCOMPARE(hook.requests().size(), rows); // the refused row was not sent again
    QStringList ordered;
    for (auto q = r.query(QStringLiteral("SELECT event_key FROM outbox WHERE environment_id = ? "
                                         "AND delivered_at IS NOT NULL ORDER BY block_number, "
                                         "id"),
                          {env});
         q->next();)
        ordered << q->value(0).toString();
    QStringList accepted;
    for (const QByteArray& k : hook.acceptedKeys())
        accepted << QString::fromUtf8(k);
    QCOMPARE(accepted, ordered);
}

// Each backend, without a crash and with the process killed at a crash point first.
static void crashRows(const QString& sqlite, const QString& pg, const char* point)
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("crash");
    QTest::newRow("sqlite") << sqlite << QString();
    QTest::newRow("postgresql") << pg << QString();
    QTest::addRow("sqlite, killed at %s", point) << sqlite << QString::fromLatin1(point);
    QTest::addRow("postgresql, killed at %s", point) << pg << QString::fromLatin1(point);
}

// Killed the (skip + 1)th time the process reaches `point`.
static QProcessEnvironment crashingAt(const QString& point, int skip)
{
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("FORKSCOPE_CRASH_AT"), point);
    e.insert(QStringLiteral("FORKSCOPE_CRASH_AFTER"), QString::number(skip));
    return e;
}

void TestBackends::outboxDeliveredOncePerKey_data()
{
    crashRows(m_lab->tempPath(QStringLiteral("backends.sqlite")), m_cluster.url(), "mid-delivery");
}

void TestBackends::outboxDeliveredOncePerKey()
{
    QFETCH(QString, db);
    QFETCH(QString, crash);
    const QString env = QStringLiteral("delivered") + (crash.isEmpty() ? QString() : "-" + crash);
    test::WebhookRecorder hook;
    hook.setPattern(test::WebhookRecorder::flapping(5, 503)); // about half refused, retried
    const QStringList args = indexArgs(db, env)
                             << QStringLiteral("--exit-when-synced") << QStringLiteral("--webhook")
                             << hook.url().toString() << QStringLiteral("--webhook-batch")
                             << QStringLiteral("1");
    if (!crash.isEmpty()) {
        // Killed between a delivery the webhook accepted and its record: that one row is
        // sent again by the next run, with the same key.
        const test::ProcessRun killed = test::runForkscope(args, crashingAt(crash, 1));
        QVERIFY2(killed.finished && killed.exitStatus == QProcess::CrashExit,
                 qPrintable(killed.describe()));
    }
    VERIFY_EXIT_OK(test::runForkscope(args));
    Backend b(db);
    store::ContractReader& r = b.open();
    QStringList keys;
    for (auto q = r.query(QStringLiteral("SELECT event_key, delivered_at FROM outbox WHERE "
                                         "environment_id = ?"),
                          {env});
         q->next();) {
        QVERIFY2(!q->value(1).isNull(), qPrintable(q->value(0).toString()));
        keys << q->value(0).toString();
    }
    QCOMPARE(qint64(keys.size()),
             r.scalar(QStringLiteral("SELECT count(*) FROM transfer_events WHERE environment_id "
                                     "= ?"),
                      {env}));
    // Every key accepted exactly once (a refused one is sent again, never a second time
    // after it was accepted).
    QHash<QByteArray, int> accepted;
    for (const auto& req : hook.requests())
        if (req.status == 200)
            ++accepted[req.idempotencyKey];
    QCOMPARE(accepted.size(), keys.size());
    int twice = 0;
    for (const QString& k : keys) {
        QVERIFY(accepted.value(k.toUtf8()) >= 1);
        twice += accepted.value(k.toUtf8()) - 1;
    }
    // Without a crash, each key once; killed mid-delivery, at most the row in flight twice.
    QVERIFY2(twice <= (crash.isEmpty() ? 0 : 1), qPrintable(QString::number(twice)));
}

void TestBackends::aHoleIsFoundAndRepaired()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("holed");
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    qint64 block = b.open().scalar(QStringLiteral("SELECT max(block_number) FROM logs WHERE "
                                                  "environment_id = ?"),
                                   {env});
    QVERIFY(block > 0);
    // Lost rows below the checkpoint (through the store itself: never a stray file write).
    b.open().query(QStringLiteral("DELETE FROM log_store WHERE environment_id = ? AND "
                                  "block_number = ?"),
                   {env, block});
    b.close();
    const QStringList verify{
        QStringLiteral("verify"), QStringLiteral("--db"),          db, QStringLiteral("--env"), env,
        QStringLiteral("--rpc"),  m_lab->devnet().url().toString()};
    const test::ProcessRun holed = test::runForkscope(verify);
    QCOMPARE(holed.exitCode, 1);
    QVERIFY2(holed.err.contains(QStringLiteral("the first at block %1").arg(block)),
             qPrintable(holed.describe()));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("repair"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                       m_lab->devnet().url().toString(), QStringLiteral("--from"),
                                       QString::number(block)}));
    VERIFY_EXIT_OK(test::runForkscope(verify));
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                            "environment_id = ? AND reason = 'repair'"),
                             {env}),
             1);
}

void TestBackends::aKilledIndexerLeavesNothingHalfWritten_data()
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("point");
    for (const char* point : {"before-commit", "after-commit"}) {
        QTest::addRow("sqlite, %s", point)
            << m_lab->tempPath(QStringLiteral("backends.sqlite")) << QString::fromLatin1(point);
        QTest::addRow("postgresql, %s", point) << m_cluster.url() << QString::fromLatin1(point);
    }
}

void TestBackends::aKilledIndexerLeavesNothingHalfWritten()
{
    // Killed (SIGKILL, as kill -9) at its second batch's crash point, then run again: the
    // data and the checkpoint committed together or not at all, so the second run finds a
    // consistent store and completes it, every log once.
    QFETCH(QString, db);
    QFETCH(QString, point);
    const QString env = QStringLiteral("crash-") + point;
    QStringList args = indexArgs(db, env) << QStringLiteral("--exit-when-synced");
    if (store::pg::isPostgresUrl(db)) // the killed range goes back after its lease
        args << QStringLiteral("--lease-ms") << QStringLiteral("500");
    QProcessEnvironment crash = QProcessEnvironment::systemEnvironment();
    crash.insert(QStringLiteral("FORKSCOPE_CRASH_AT"), point);
    crash.insert(QStringLiteral("FORKSCOPE_CRASH_AFTER"), QStringLiteral("1"));
    const test::ProcessRun killed = test::runForkscope(args, crash);
    QVERIFY2(killed.finished && killed.exitStatus == QProcess::CrashExit,
             qPrintable(killed.describe()));
    QVERIFY2(killed.err.contains(QStringLiteral("crash point %1 reached").arg(point)),
             qPrintable(killed.describe()));
    VERIFY_EXIT_OK(test::runForkscope(args));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("verify"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                       m_lab->devnet().url().toString()}));
    Backend b(db);
    store::ContractReader& r = b.open();
    QCOMPARE(checkpointOf(r, env), qint64(m_lab->eth().blockNumber()));
    // Each Transfer's outbox row once, with its log.
    QCOMPARE(
        r.scalar(QStringLiteral("SELECT count(*) FROM outbox WHERE environment_id = ?"), {env}),
        r.scalar(QStringLiteral("SELECT count(*) FROM transfer_events WHERE environment_id "
                                "= ?"),
                 {env}));
}

void TestBackends::aReorgIsRolledBackAndRecorded_data()
{
    crashRows(m_lab->tempPath(QStringLiteral("backends.sqlite")), m_cluster.url(), "mid-rollback");
}

void TestBackends::aReorgIsRolledBackAndRecorded()
{
    QFETCH(QString, db);
    QFETCH(QString, crash);
    const QString env = QStringLiteral("reorged") + (crash.isEmpty() ? QString() : "-" + crash);
    const QStringList args = indexArgs(db, env)
                             << QStringLiteral("--poll-ms") << QStringLiteral("100");
    QProcess follower;
    if (!crash.isEmpty())
        follower.setProcessEnvironment(crashingAt(crash, 0)); // the first rollback
    follower.start(QStringLiteral(FORKSCOPE_BINARY), args);
    Backend b(db);
    const auto reorgs = [&] {
        return b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                              "environment_id = ?"),
                               {env});
    };
    QTRY_VERIFY_WITH_TIMEOUT(onHead(b, env), 60'000);
    // Transfers in the blocks the reorg will replace (an earlier row left empty ones there).
    m_lab->sprayAll(3, 2, 10);
    QTRY_VERIFY_WITH_TIMEOUT(onHead(b, env), 60'000);
    const auto before = b.open().checkpoint(env, 31337, QStringLiteral("default"));
    // What the rollback will remove, as a reader sees it now: the Transfers of the last 3
    // blocks, and the balances of the holders they touched.
    const qint64 fork = before->number - 3;
    QStringList removed;
    QSet<QString> touched;
    for (auto q = b.open().query(QStringLiteral("SELECT block_number, log_index, contract, "
                                                "from_addr, to_addr FROM transfer_events WHERE "
                                                "environment_id = ? AND block_number > ? ORDER BY "
                                                "block_number, log_index"),
                                 {env, fork});
         q->next();) {
        removed
            << QStringLiteral("%1/%2").arg(q->value(0).toLongLong()).arg(q->value(1).toLongLong());
        for (int party : {3, 4})
            if (q->value(party).toString() != QStringLiteral("0x") + QString(40, QLatin1Char('0')))
                touched << q->value(2).toString() + ' ' + q->value(party).toString();
    }
    QVERIFY(!removed.isEmpty());
    QHash<QString, QString> balancesBefore;
    for (auto q = b.open().query(QStringLiteral("SELECT contract, holder, balance FROM "
                                                "token_balances WHERE environment_id = ?"),
                                 {env});
         q->next();)
        balancesBefore.insert(q->value(0).toString() + ' ' + q->value(1).toString(),
                              q->value(2).toString());
    b.close();
    m_lab->reorg(3); // the last 3 blocks replaced, their Transfers dropped
    m_lab->mine(1);
    if (!crash.isEmpty()) {
        // Killed with the rollback's deletes done and not committed: nothing of it stays,
        // and the next process rolls back from the same checkpoint.
        QVERIFY(follower.waitForFinished(60'000));
        QCOMPARE(follower.exitStatus(), QProcess::CrashExit);
        QCOMPARE(reorgs(), 0);
        const auto after = b.open().checkpoint(env, 31337, QStringLiteral("default"));
        QVERIFY(after && before && after->number == before->number && after->hash == before->hash);
        follower.setProcessEnvironment(QProcessEnvironment::systemEnvironment());
        follower.start(QStringLiteral(FORKSCOPE_BINARY), args);
    }
    QTRY_VERIFY_WITH_TIMEOUT(onHead(b, env) && reorgs() >= 1, 60'000);
    QCOMPARE(reorgs(), 1);
    // The diff (reorg_diff_items) says what went: every removed Transfer, its outbox row,
    // and each touched balance with the value readers saw before.
    store::ContractReader& r = b.open();
    const auto itemsOf = [&](const QString& kind) {
        QStringList out;
        for (auto q = r.query(QStringLiteral("SELECT block_number, log_index FROM "
                                             "reorg_diff_items WHERE environment_id = ? AND kind "
                                             "LIKE ? ORDER BY block_number, log_index"),
                              {env, kind});
             q->next();)
            out << QStringLiteral("%1/%2")
                       .arg(q->value(0).toLongLong())
                       .arg(q->value(1).toLongLong());
        return out;
    };
    QCOMPARE(itemsOf(QStringLiteral("transfer_removed")), removed);
    QCOMPARE(itemsOf(QStringLiteral("outbox_%")), removed);
    // Each touched holder: before as readers saw it, after = before less what the removed
    // Transfers moved (no row left, NULL, only where that comes to nothing).
    using boost::multiprecision::cpp_int;
    QHash<QString, cpp_int> moved;
    for (auto q = r.query(QStringLiteral("SELECT contract, from_addr, to_addr, value FROM "
                                         "reorg_diff_items WHERE environment_id = ? AND kind = "
                                         "'transfer_removed'"),
                          {env});
         q->next();) {
        const cpp_int v(q->value(3).toString().toStdString());
        moved[q->value(0).toString() + ' ' + q->value(1).toString()] -= v;
        moved[q->value(0).toString() + ' ' + q->value(2).toString()] += v;
    }
    QSet<QString> balanced;
    for (auto q = r.query(QStringLiteral("SELECT contract, holder, before_value, after_value "
                                         "FROM reorg_diff_items WHERE environment_id = ? AND "
                                         "kind = 'balance_changed'"),
                          {env});
         q->next();) {
        const QString key = q->value(0).toString() + ' ' + q->value(1).toString();
        balanced << key;
        QCOMPARE(q->value(2).toString(), balancesBefore.value(key));
        const cpp_int after = cpp_int(q->value(2).toString().toStdString()) - moved.value(key);
        if (q->value(3).isNull())
            QCOMPARE(QString::fromStdString(after.str()), QStringLiteral("0"));
        else
            QCOMPARE(q->value(3).toString(), QString::fromStdString(after.str()));
    }
    QCOMPARE(balanced, touched);
    b.close();
    // The report carries the same diff: counts by kind and the rows themselves.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("r.json"));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("report"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--format"),
                                       QStringLiteral("json"), QStringLiteral("--out"), out}));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject reorg =
        QJsonDocument::fromJson(file.readAll()).object().value("reorgs").toArray().at(0).toObject();
    QCOMPARE(reorg.value("diff_counts").toObject().value("transfer_removed").toInteger(),
             qint64(removed.size()));
    QCOMPARE(reorg.value("diff_counts").toObject().value("balance_changed").toInteger(),
             qint64(touched.size()));
    QCOMPARE(reorg.value("diff_items").toArray().size(),
             std::min<qsizetype>(reorg.value("diff_items_total").toInteger(), 200));
    QCOMPARE(reorg.value("diff_items").toArray().at(0).toObject().value("kind").toString(),
             QStringLiteral("transfer_removed")); // the order the rollback recorded them in
    follower.terminate();
    QVERIFY(follower.waitForFinished(30'000));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("verify"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                       m_lab->devnet().url().toString()}));
}

// A reorg deeper than --max-reorg-depth stops the follower in one line, and nothing is
// deleted; run again with a limit that covers it, the same index rolls back once.
void TestBackends::aReorgDeeperThanTheLimitChangesNothing()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("deep");
    const QStringList args = indexArgs(db, env)
                             << QStringLiteral("--poll-ms") << QStringLiteral("100")
                             << QStringLiteral("--max-reorg-depth");
    QProcess follower;
    follower.start(QStringLiteral(FORKSCOPE_BINARY), args + QStringList{QStringLiteral("3")});
    Backend b(db);
    QTRY_VERIFY_WITH_TIMEOUT(onHead(b, env), 60'000);
    // What a reader sees of the environment, to prove nothing changed.
    const auto state = [&] {
        store::ContractReader& r = b.open();
        const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
        QStringList out{cp ? QStringLiteral("%1 %2").arg(cp->number).arg(cp->hash) : QString()};
        for (const char* table : {"blocks", "logs", "transfer_events", "outbox", "reorg_events"})
            out << QStringLiteral("%1 %2")
                       .arg(QLatin1String(table))
                       .arg(r.scalar(
                           QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ?")
                               .arg(QLatin1String(table)),
                           {env}));
        b.close();
        return out;
    };
    const QStringList before = state();
    m_lab->reorg(5);
    m_lab->mine(1);
    QTRY_COMPARE_WITH_TIMEOUT(follower.state(), QProcess::NotRunning, 60'000);
    QCOMPARE(follower.exitStatus(), QProcess::NormalExit);
    QCOMPARE(follower.exitCode(), 1);
    const QStringList err =
        QString::fromUtf8(follower.readAllStandardError()).trimmed().split(QLatin1Char('\n'));
    QCOMPARE(err.size(), 1);
    QVERIFY2(err.first().contains(QStringLiteral("reorg deeper than --max-reorg-depth 3")) &&
                 err.first().contains(QStringLiteral("Nothing was deleted")),
             qPrintable(err.first()));
    QCOMPARE(state(), before);

    follower.start(QStringLiteral(FORKSCOPE_BINARY), args + QStringList{QStringLiteral("8")});
    const auto depths = [&] {
        QStringList out;
        for (auto q = b.open().query(QStringLiteral("SELECT depth FROM reorg_events WHERE "
                                                    "environment_id = ?"),
                                     {env});
             q->next();)
            out << q->value(0).toString();
        return out;
    };
    QTRY_VERIFY_WITH_TIMEOUT(onHead(b, env) && !depths().isEmpty(), 60'000);
    QCOMPARE(depths(), QStringList{QStringLiteral("5")});
    b.close();
    follower.terminate();
    QTRY_COMPARE_WITH_TIMEOUT(follower.state(), QProcess::NotRunning, 30'000);
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("verify"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                       m_lab->devnet().url().toString()}));
}

QTEST_GUILESS_MAIN(TestBackends)
#include "tst_backends.moc"
