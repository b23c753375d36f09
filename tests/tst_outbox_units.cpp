// The outbox dispatcher against scripted sinks, on a real SQLite file and no node: the
// retry wait follows the sink's failure streak (reset by any answer for good, blind to a
// row's history), batches keep the order and the safe height, a refused batch is asked
// again row by row, and the JSON Lines sink writes whole batches. Waits are read from
// RoundResult::retryAfter (what the dispatcher thread sleeps), never timed.
#include "outbox/JsonLinesSink.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/OutboxThread.h"
#include "outbox/RetryBackoff.h"
#include "store/Database.h"
#include "store/OpenStore.h"
#include "store/SqliteOutboxQueue.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSemaphore>
#include <QSqlQuery>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

using namespace forkscope;
using outbox::DeliveryResult;
using Outcome = outbox::DeliveryResult::Outcome;
using std::chrono::milliseconds;

namespace {

const QString kEnv = QStringLiteral("env");
constexpr std::uint64_t kChain = 31337;

// A fresh database holding `rows` pending outbox rows, `perBlock` per block from block 1,
// keyed k1, k2, ... in (block_number, id) order.
std::unique_ptr<store::Database> seeded(const QString& path, int rows, int perBlock = 1)
{
    auto db = store::Database::open(path);
    store::WriteTransaction tx(*db);
    db->run(QStringLiteral("INSERT INTO environments (environment_id, chain_id, genesis_hash, "
                           "rpc_url, created_at) VALUES (?, ?, '0x00', 'http://x', ?)"),
            {kEnv, qint64(kChain), store::nowUtc()});
    for (int i = 1; i <= rows; ++i)
        db->run(QStringLiteral("INSERT INTO outbox (environment_id, chain_id, block_number, "
                               "event_key, payload) VALUES (?, ?, ?, ?, ?)"),
                {kEnv, qint64(kChain), (i - 1) / perBlock + 1, QStringLiteral("k%1").arg(i),
                 QStringLiteral("{\"n\":%1}").arg(i)});
    tx.commit();
    return db;
}

qint64 count(store::Database& db, const QString& where)
{
    QSqlQuery q = db.run("SELECT count(*) FROM outbox WHERE " + where);
    return q.next() ? q.value(0).toLongLong() : -1;
}

// Answers from a script, then `otherwise`; records the keys of every call.
struct ScriptedSink : outbox::OutboxSink
{
    QList<Outcome> script;
    Outcome otherwise = Outcome::Delivered;
    int batch = 1;
    QList<QStringList> calls;

    QString describe() const override { return QStringLiteral("scripted"); }
    int maxBatch() const override { return batch; }
    DeliveryResult deliver(const QList<outbox::OutboxRow>& rows) override
    {
        QStringList keys;
        for (const auto& r : rows)
            keys << r.eventKey;
        calls << keys;
        const Outcome o = script.isEmpty() ? otherwise : script.takeFirst();
        return {o, o == Outcome::Delivered ? QString() : QStringLiteral("scripted %1").arg(int(o))};
    }
};

// Runs rounds until a round neither delivers nor is blocked (or `maxRounds`), and returns
// the wait each round asked for.
QList<qint64> waitsUntilIdle(outbox::OutboxDispatcher& d, std::uint64_t safe, int maxRounds = 100)
{
    QList<qint64> waits;
    for (int i = 0; i < maxRounds; ++i) {
        const outbox::RoundResult r = d.deliverRound(safe);
        if (!r.blocked && r.delivered == 0 && r.failed == 0)
            break;
        waits << r.retryAfter.count();
    }
    return waits;
}

// A webhook receiver on a thread of its own (the test thread blocks in the outbox thread's
// join): it takes one request, then answers 200 after `answerAfterMs`, or never (-1).
class SlowReceiver
{
public:
    explicit SlowReceiver(int answerAfterMs)
    {
        QSemaphore listening;
        m_thread.reset(QThread::create([this, answerAfterMs, &listening] {
            QTcpServer server;
            server.listen(QHostAddress::LocalHost);
            m_port = server.serverPort();
            listening.release();
            if (!server.waitForNewConnection(20000))
                return;
            std::unique_ptr<QTcpSocket> socket(server.nextPendingConnection());
            QByteArray request;
            while (!request.contains("\r\n\r\n") && socket->waitForReadyRead(20000))
                request += socket->readAll();
            requestSeen.release();
            if (answerAfterMs < 0) {
                socket->waitForDisconnected(20000); // until the sender gives up
                return;
            }
            QThread::msleep(ulong(answerAfterMs)); // a slow receiver, on purpose
            socket->write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            socket->waitForBytesWritten(20000);
            socket->waitForDisconnected(20000);
        }));
        m_thread->start();
        listening.acquire();
    }
    ~SlowReceiver() { m_thread->wait(); }
    quint16 port() const { return m_port; }
    QSemaphore requestSeen;

private:
    std::unique_ptr<QThread> m_thread;
    quint16 m_port = 0;
};

} // namespace

class TestOutboxUnits : public QObject
{
    Q_OBJECT
private slots:
    void retryDelayFollowsTheFailureStreak_data();
    void retryDelayFollowsTheFailureStreak();
    void backoffResetsAfterSuccess();
    void waitIgnoresTheRowsHistory();
    void batchesKeepOrderAndTheSafeHeight();
    void refusedBatchIsAskedAgainRowByRow();
    void jsonLinesSinkWritesOneBatch();
    void jsonLinesSinkWriteFailureIsRetried_data();
    void jsonLinesSinkWriteFailureIsRetried();
    void aSafeHeightWakesAThreadWaitingForOne();
    void stopWaitsBrieflyForTheWebhooksAnswer_data();
    void stopWaitsBrieflyForTheWebhooksAnswer();

private:
    // An OutboxThread delivering `path`'s outbox to `webhook` (or, without one, to `file`).
    std::unique_ptr<outbox::OutboxThread> thread(const QString& path, const QUrl& webhook,
                                                 const QString& file, QStringList* errors)
    {
        return std::make_unique<outbox::OutboxThread>(
            [path] { return store::openOutboxQueue(path, kEnv, kChain); }, webhook, file,
            milliseconds(600000), [errors](const QString& m) { errors->append(m); });
    }

    QTemporaryDir m_dir;
};

void TestOutboxUnits::retryDelayFollowsTheFailureStreak_data()
{
    QTest::addColumn<int>("streak");
    QTest::addColumn<qint64>("ms");
    QTest::newRow("no failure") << 0 << qint64(0);
    QTest::newRow("first failure") << 1 << qint64(20);
    QTest::newRow("second") << 2 << qint64(30);
    QTest::newRow("third") << 3 << qint64(45);
    QTest::newRow("fourth") << 4 << qint64(68);
    QTest::newRow("tenth") << 10 << qint64(769);
    QTest::newRow("nineteenth") << 19 << qint64(29558);
    QTest::newRow("capped") << 20 << qint64(30000);
    QTest::newRow("far past the cap") << 100000 << qint64(30000);
    QTest::newRow("negative") << -3 << qint64(0);
}

void TestOutboxUnits::retryDelayFollowsTheFailureStreak()
{
    QFETCH(int, streak);
    QFETCH(qint64, ms);
    QCOMPARE(outbox::RetryBackoff{}.delay(streak).count(), ms);
}

void TestOutboxUnits::backoffResetsAfterSuccess()
{
    // The sink fails 5 times, recovers, then fails once after each of two successes.
    auto db = seeded(m_dir.filePath("reset.sqlite"), 20);
    ScriptedSink sink;
    sink.script = {Outcome::Retry, Outcome::Retry,     Outcome::Retry,
                   Outcome::Retry, Outcome::Retry,     Outcome::Delivered,
                   Outcome::Retry, Outcome::Delivered, Outcome::Retry};
    store::SqliteOutboxQueue queue(*db, kEnv, kChain);
    outbox::OutboxDispatcher d(queue, sink);
    const QList<qint64> waits = waitsUntilIdle(d, 100);
    // Growing waits during the outage; after each success the next failure waits the first
    // step again (20 ms), not the sixth and seventh (152, 228 ms); then the rest goes in
    // one round that asks for no wait.
    QCOMPARE(waits, (QList<qint64>{20, 30, 45, 68, 101, 20, 20, 0}));
    QCOMPARE(count(*db, "delivered_at IS NOT NULL"), 20);
    QCOMPARE(sink.calls.size(), 20 + 7); // each row once, plus the 7 failed attempts
    QCOMPARE(d.failureStreak(), 0);
}

void TestOutboxUnits::waitIgnoresTheRowsHistory()
{
    // A row that was tried 1,000 times before (another run, another sink) does not make
    // the next failure wait longer: only the sink's current streak counts.
    auto db = seeded(m_dir.filePath("history.sqlite"), 3);
    db->run(QStringLiteral("UPDATE outbox SET attempts = 1000, last_error = 'old' WHERE "
                           "event_key = 'k1'"));
    ScriptedSink sink;
    sink.script = {Outcome::Retry};
    store::SqliteOutboxQueue queue(*db, kEnv, kChain);
    outbox::OutboxDispatcher d(queue, sink);
    const outbox::RoundResult r = d.deliverRound(100);
    QVERIFY(r.blocked);
    QCOMPARE(r.retryAfter.count(), 20);
    QCOMPARE(count(*db, "event_key = 'k1' AND attempts = 1001"), 1); // still recorded
}

void TestOutboxUnits::batchesKeepOrderAndTheSafeHeight()
{
    // 30 rows, 3 per block; the safe height is block 7: rows k1..k21, in batches of 8.
    auto db = seeded(m_dir.filePath("batches.sqlite"), 30, 3);
    ScriptedSink sink;
    sink.batch = 8;
    sink.script = {Outcome::Delivered, Outcome::Retry}; // the second batch is retried whole
    store::SqliteOutboxQueue queue(*db, kEnv, kChain);
    outbox::OutboxDispatcher d(queue, sink);
    const QList<qint64> waits = waitsUntilIdle(d, 7);
    QCOMPARE(waits, (QList<qint64>{20, 0}));
    QStringList keys;
    for (int i = 1; i <= 21; ++i)
        keys << QStringLiteral("k%1").arg(i);
    QCOMPARE(sink.calls,
             (QList<QStringList>{keys.mid(0, 8), keys.mid(8, 8), keys.mid(8, 8), keys.mid(16)}));
    QCOMPARE(count(*db, "delivered_at IS NOT NULL AND block_number <= 7"), 21);
    QCOMPARE(count(*db, "delivered_at IS NOT NULL AND block_number > 7"), 0);
    // One transaction per batch: a batch's rows share one delivered_at.
    QSqlQuery q = db->run(QStringLiteral("SELECT count(DISTINCT delivered_at) FROM outbox WHERE "
                                         "event_key IN ('k9', 'k12', 'k16')"));
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 1);
    // The retried batch's rows record both attempts.
    QCOMPARE(count(*db, "attempts = 2"), 8);
}

void TestOutboxUnits::refusedBatchIsAskedAgainRowByRow()
{
    auto db = seeded(m_dir.filePath("refused.sqlite"), 6);
    ScriptedSink sink;
    sink.batch = 4;
    // The batch k1..k4 is refused; alone, only k2 is.
    sink.script = {Outcome::Failed, Outcome::Delivered, Outcome::Failed};
    store::SqliteOutboxQueue queue(*db, kEnv, kChain);
    outbox::OutboxDispatcher d(queue, sink);
    const outbox::RoundResult r = d.deliverRound(100);
    QCOMPARE(r.delivered, 5);
    QCOMPARE(r.failed, 1);
    QVERIFY(!r.blocked);
    QCOMPARE(sink.calls,
             (QList<QStringList>{
                 {"k1", "k2", "k3", "k4"}, {"k1"}, {"k2"}, {"k3"}, {"k4"}, {"k5", "k6"}}));
    QCOMPARE(count(*db, "failed_at IS NOT NULL AND event_key = 'k2'"), 1);
    QCOMPARE(count(*db, "delivered_at IS NOT NULL"), 5);
}

void TestOutboxUnits::jsonLinesSinkWritesOneBatch()
{
    const QString path = m_dir.filePath("batch.jsonl");
    outbox::JsonLinesSink sink(path);
    QCOMPARE(sink.maxBatch(), outbox::JsonLinesSink::kMaxBatch);
    const QList<outbox::OutboxRow> rows{{7, 3, "transfer:3:0xab:0", "{\"a\":1}"},
                                        {8, 4, "weird \"key\"\n", "{\"b\":[2]}"}};
    QCOMPARE(sink.deliver(rows).outcome, Outcome::Delivered);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().split('\n');
    QCOMPARE(lines.size(), 3); // two lines and the final newline
    QVERIFY(lines.last().isEmpty());
    for (int i = 0; i < 2; ++i) {
        QJsonParseError e{};
        const QJsonObject o = QJsonDocument::fromJson(lines.at(i), &e).object();
        QVERIFY2(e.error == QJsonParseError::NoError, lines.at(i).constData());
        QCOMPARE(o.value("id").toInteger(), rows.at(i).id);
        QCOMPARE(o.value("eventKey").toString(), rows.at(i).eventKey);
        QCOMPARE(o.value("blockNumber").toInteger(), qint64(rows.at(i).blockNumber));
        QCOMPARE(QJsonDocument(o.value("payload").toObject()).toJson(QJsonDocument::Compact),
                 rows.at(i).payload);
    }
}

void TestOutboxUnits::jsonLinesSinkWriteFailureIsRetried_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<QString>("said");
    QTest::newRow("one row") << 1 << "write of 1 outbox row to /dev/full failed: ";
    QTest::newRow("two rows") << 2 << "write of 2 outbox rows to /dev/full failed: ";
}

void TestOutboxUnits::jsonLinesSinkWriteFailureIsRetried()
{
    QFETCH(int, rows);
    QFETCH(QString, said);
    // /dev/full takes the open and refuses every write (ENOSPC).
    if (!QFile::exists("/dev/full"))
        QSKIP("no /dev/full on this system");
    outbox::JsonLinesSink sink("/dev/full");
    QList<outbox::OutboxRow> batch;
    for (int i = 1; i <= rows; ++i)
        batch.append({i, 1, "k" + QString::number(i), "{}"});
    const DeliveryResult r = sink.deliver(batch);
    QCOMPARE(r.outcome, Outcome::Retry);
    QVERIFY2(r.detail.startsWith(said), qPrintable(r.detail));
}

void TestOutboxUnits::aSafeHeightWakesAThreadWaitingForOne()
{
    // Until the indexer publishes a safe height the thread has nothing to poll for and
    // waits; the first height must wake it.
    const QString path = m_dir.filePath("wake.sqlite");
    auto db = seeded(path, 3);
    const QString file = m_dir.filePath("wake.jsonl");
    QStringList errors;
    auto t = thread(path, {}, file, &errors);
    // Time for its first round to find no height and wait (no poll would end that wait).
    QTest::qWait(300);
    QCOMPARE(t->delivered(), 0);
    t->setSafeHeight(100);
    QTRY_COMPARE_WITH_TIMEOUT(t->delivered(), 3, 20000);
    QCOMPARE(errors, QStringList{});
    QCOMPARE(count(*db, "delivered_at IS NOT NULL"), 3);
}

void TestOutboxUnits::stopWaitsBrieflyForTheWebhooksAnswer_data()
{
    QTest::addColumn<int>("answerAfterMs"); // -1: never
    QTest::addColumn<int>("delivered");
    QTest::newRow("answered within the grace") << 300 << 1;
    QTest::newRow("never answered") << -1 << 0;
}

void TestOutboxUnits::stopWaitsBrieflyForTheWebhooksAnswer()
{
    QFETCH(int, answerAfterMs);
    QFETCH(int, delivered);
    // One row per request, a webhook timeout of ten minutes, and a stop while the first
    // request is with the receiver: its answer counts if it comes within the grace, and
    // stopping never waits for the timeout. The rows after it are not sent.
    SlowReceiver receiver(answerAfterMs);
    const QString path = m_dir.filePath(QStringLiteral("stop-%1.sqlite").arg(answerAfterMs));
    auto db = seeded(path, 3);
    QStringList errors;
    auto t = thread(path, QUrl(QStringLiteral("http://127.0.0.1:%1/").arg(receiver.port())), {},
                    &errors);
    t->setSafeHeight(100);
    QVERIFY(receiver.requestSeen.tryAcquire(1, 20000));
    t.reset(); // joins the thread
    QCOMPARE(count(*db, "delivered_at IS NOT NULL"), delivered);
    QCOMPARE(count(*db, "failed_at IS NOT NULL"), 0);
    QCOMPARE(count(*db, "attempts = 1 AND last_error LIKE 'delivery stopped before the webhook "
                        "answered%'"),
             1 - delivered);
    QCOMPARE(count(*db, "attempts = 0 AND event_key IN ('k2', 'k3')"), 2);
    QCOMPARE(errors, QStringList{});
}

QTEST_GUILESS_MAIN(TestOutboxUnits)
#include "tst_outbox_units.moc"
