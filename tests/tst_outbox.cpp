// Outbox delivery through `forkscope index --webhook`: only at or below the safe height,
// in order, exactly once per 2xx despite failures and timeouts; reorgs drop undelivered
// rows and retract delivered ones; a kill -9 between the sink's confirmation and the
// bookkeeping re-sends that one row with the same Idempotency-Key.
#include "IndexerLab.h"
#include "WebhookRecorder.h"
#include "indexer/EnvironmentRegistry.h"
#include "outbox/OutboxDispatcher.h"
#include "store/Database.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QSqlQuery>
#include <QtTest>

using namespace forkscope;
using test::IndexerLab;
using test::ProcessRun;
using test::WebhookRecorder;

namespace {
QList<QByteArray> keysInOutboxOrder(IndexerLab& lab, const QString& where)
{
    store::Database::Options ro;
    ro.readOnly = true;
    auto db = store::Database::open(lab.dbPath(), ro);
    QSqlQuery q =
        db->run("SELECT event_key FROM outbox WHERE " + where + " ORDER BY block_number, id");
    QList<QByteArray> out;
    while (q.next())
        out << q.value(0).toString().toUtf8();
    return out;
}
} // namespace

class TestOutbox : public QObject
{
    Q_OBJECT
private slots:
    void deliversInOrderExactlyOnceBelowTheSafeHeight();
    void reorgDropsUndeliveredAndRetractsDelivered();
    void killBetweenConfirmationAndBookkeeping();
    void fileSinkAppendsJsonLines();
    void refusedRowIsMarkedFailedAndShown();
    void archivedEnvironmentDeliversNothing();
};

void TestOutbox::refusedRowIsMarkedFailedAndShown()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(2, 2, 10);
    WebhookRecorder hook({422}); // the receiver refuses the first row for good
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--webhook", hook.url().toString()}));
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE failed_at IS NOT NULL AND last_error "
                       "LIKE '%HTTP 422%'"),
             1);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL"),
             lab.count("SELECT count(*) FROM outbox") - 1);
    QCOMPARE(hook.requests().size(), int(lab.count("SELECT count(*) FROM outbox"))); // not retried
}

void TestOutbox::archivedEnvironmentDeliversNothing()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(2, 2, 10);
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced"})); // no sink: rows wait
    const qint64 rows = lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL");
    QVERIFY(rows > 0);
    auto db = store::Database::open(lab.dbPath());
    {
        store::WriteTransaction tx(*db); // what a lab reset does to the old environment
        indexer::EnvironmentRegistry(*db).archive("env", "2026-11-30T00:00:00.000Z");
        tx.commit();
    }
    struct CountingSink : outbox::OutboxSink
    {
        int calls = 0;
        QString describe() const override { return "counting"; }
        outbox::DeliveryResult deliver(const outbox::OutboxRow&) override
        {
            ++calls;
            return {outbox::DeliveryResult::Outcome::Delivered, {}};
        }
    } sink;
    outbox::OutboxDispatcher dispatcher(*db, "env", 31337, sink);
    const outbox::RoundResult r = dispatcher.deliverRound(lab.eth().blockNumber());
    QVERIFY(r.archived);
    QCOMPARE(r.delivered, 0);
    QCOMPARE(sink.calls, 0);
    QVERIFY2(r.lastError.contains("environment env was archived at 2026-11-30T00:00:00.000Z"),
             qPrintable(r.lastError));
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL"), rows);
}

void TestOutbox::deliversInOrderExactlyOnceBelowTheSafeHeight()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(10, 3, 10); // 31 rows over blocks 1..11
    // Three 500s, one request left hanging (a timeout), one 503, then all good.
    WebhookRecorder hook({500, 500, 500, 0, 503});
    const ProcessRun run =
        lab.runIndex("env", {"--exit-when-synced", "--confirmations", "4", "--webhook",
                             hook.url().toString(), "--webhook-timeout-ms", "300"});
    VERIFY_EXIT_OK(run);
    const qint64 head = qint64(lab.eth().blockNumber());
    const QString safe = QString::number(head - 4);
    // Exactly the rows at or below the safe height were accepted, once each, in order.
    QCOMPARE(hook.acceptedKeys(), keysInOutboxOrder(lab, "block_number <= " + safe));
    QCOMPARE(
        lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL AND block_number > " +
                  safe),
        0);
    QCOMPARE(
        lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND block_number <= " +
                  safe),
        0);
    QVERIFY(lab.count("SELECT count(*) FROM outbox WHERE block_number > " + safe) > 0);
    QVERIFY(lab.count("SELECT max(attempts) FROM outbox") >= 5); // the first row took the failures
    // Every request carried its row's key and payload.
    for (const auto& r : hook.requests()) {
        const QJsonObject payload = QJsonDocument::fromJson(r.body).object();
        QCOMPARE(payload.value("type").toString(), QStringLiteral("transfer"));
        QVERIFY(r.idempotencyKey.startsWith(
            "transfer:" + QByteArray::number(payload.value("blockNumber").toInt())));
    }
}

void TestOutbox::reorgDropsUndeliveredAndRetractsDelivered()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(12, 2, 10);
    WebhookRecorder hook;
    // Confirmations 3: the last 3 blocks' rows are not delivered yet.
    VERIFY_EXIT_OK(lab.runIndex(
        "env", {"--exit-when-synced", "--confirmations", "3", "--webhook", hook.url().toString()}));
    const QList<QByteArray> acceptedBefore = hook.acceptedKeys();
    const QSet<QByteArray> deliveredBefore(acceptedBefore.begin(), acceptedBefore.end());
    const QList<QByteArray> pendingBefore = keysInOutboxOrder(lab, "delivered_at IS NULL");
    QCOMPARE(pendingBefore.size(), 3 * 2);

    // Depth 5: reorgs 3 undelivered blocks and 2 delivered ones.
    lab.reorg(5);
    const ProcessRun run = lab.runIndex(
        "env", {"--exit-when-synced", "--confirmations", "0", "--webhook", hook.url().toString()});
    VERIFY_EXIT_OK(run);
    for (const QByteArray& k : pendingBefore)
        QVERIFY2(!hook.acceptedKeys().contains(k), k.constData()); // removed, never delivered
    QCOMPARE(lab.count("SELECT delivered_outbox_rows FROM reorg_events"), 2 * 2);
    QList<QByteArray> retractions;
    for (const auto& r : hook.requests())
        if (r.idempotencyKey.startsWith("retract:") && r.status == 200)
            retractions << r.idempotencyKey;
    QCOMPARE(retractions.size(), 4);
    for (const QByteArray& k : retractions)
        QVERIFY(deliveredBefore.contains(k.mid(8))); // each names a row the consumer had
    const QStringList problems = lab.verify("env");
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TestOutbox::killBetweenConfirmationAndBookkeeping()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(6, 3, 10);
    WebhookRecorder hook;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("FORKSCOPE_CRASH_AT", "mid-delivery");
    env.insert("FORKSCOPE_CRASH_AFTER", "5");
    const ProcessRun crashed =
        lab.runIndex("env", {"--exit-when-synced", "--webhook", hook.url().toString()}, {}, env);
    QVERIFY2(crashed.exitStatus == QProcess::CrashExit, qPrintable(crashed.describe()));
    QCOMPARE(hook.acceptedKeys().size(), 6); // the 6th was confirmed, then the process died

    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--webhook", hook.url().toString()}));
    const QList<QByteArray> accepted = hook.acceptedKeys();
    const QList<QByteArray> all = keysInOutboxOrder(lab, "1 = 1");
    // At-least-once: every row accepted; only the one in flight at the crash twice, with
    // the same Idempotency-Key, so a consumer that dedupes on it sees each event once.
    QCOMPARE(QSet<QByteArray>(accepted.begin(), accepted.end()),
             QSet<QByteArray>(all.begin(), all.end()));
    QCOMPARE(accepted.size(), all.size() + 1);
    QCOMPARE(accepted.count(accepted.at(5)), 2);
}

void TestOutbox::fileSinkAppendsJsonLines()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(3, 2, 10);
    const QString file = lab.tempPath("events.jsonl");
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--outbox-file", file}));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 7);
    QList<QByteArray> keys;
    for (const QByteArray& line : lines) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        QVERIFY(o.value("payload").isObject());
        keys << o.value("eventKey").toString().toUtf8();
    }
    QCOMPARE(keys, keysInOutboxOrder(lab, "1 = 1"));
}

QTEST_GUILESS_MAIN(TestOutbox)
#include "tst_outbox.moc"
