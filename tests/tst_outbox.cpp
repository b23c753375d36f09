// Outbox delivery through `forkscope index --webhook`: only at or below the safe height,
// in order, exactly once per 2xx despite failures and timeouts; a sink that fails half the
// time still gets every row in a bounded number of attempts, one row or a batch per
// request; reorgs drop undelivered rows and retract delivered ones; a kill -9 between the
// sink's confirmation and the bookkeeping re-sends that one row or batch with the same keys.
// Each runs on both stores, the backend a data row (a SQLite file, or a database of its own
// on the suite's throwaway PostgreSQL cluster), read back through the contract's surface.
#include "IndexerLab.h"
#include "StoreRows.h"
#include "WebhookRecorder.h"
#include "lab/EnvironmentBook.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/OutboxQueue.h"
#include "store/OpenStore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QtTest>

using namespace forkscope;
using test::IndexerLab;
using test::ProcessRun;
using test::WebhookRecorder;

namespace {
QList<QByteArray> keysInOutboxOrder(IndexerLab& lab, const QString& where)
{
    QList<QByteArray> out;
    for (const QString& key :
         lab.rows("SELECT event_key FROM outbox WHERE " + where + " ORDER BY block_number, id"))
        out << key.toUtf8();
    return out;
}

// The blockNumber of every row a request carried (a batch's elements, or a single payload).
QList<qint64> blocksIn(const WebhookRecorder::Request& r)
{
    QList<qint64> out;
    const QJsonDocument doc = QJsonDocument::fromJson(r.body);
    if (doc.isArray()) {
        for (const QJsonValue& v : doc.array())
            out << v.toObject().value("blockNumber").toInteger();
    } else {
        out << doc.object().value("blockNumber").toInteger();
    }
    return out;
}

QList<QByteArray> jsonLinesKeys(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> keys;
    for (const QByteArray& line : f.readAll().trimmed().split('\n'))
        keys << QJsonDocument::fromJson(line).object().value("eventKey").toString().toUtf8();
    return keys;
}

const QString kHookTimeout = QStringLiteral("2000");
// A run with a sink is synced once its outbox is drained, which it sees at a round: rounds
// 100 ms apart, not a second, end each run sooner.
const QString kPollMs = QStringLiteral("100");
// `forkscope index` into `hook`, killed (a crash point) right after the receiver answered
// its 6th row, before that answer is recorded.
ProcessRun runUntilTheSixthAnswer(IndexerLab& lab, const WebhookRecorder& hook)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("FORKSCOPE_CRASH_AT", "mid-delivery");
    env.insert("FORKSCOPE_CRASH_AFTER", "5");
    return lab.runIndex(
        "env", {"--exit-when-synced", "--poll-ms", kPollMs, "--webhook", hook.url().toString()}, {},
        env);
}
} // namespace

class TestOutbox : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_stores.startCluster(); }
    void deliversInOrderExactlyOnceBelowTheSafeHeight_data() { test::StoreRows::backendRows(); }
    void deliversInOrderExactlyOnceBelowTheSafeHeight();
    void reorgDropsUndeliveredAndRetractsDelivered_data() { test::StoreRows::backendRows(); }
    void reorgDropsUndeliveredAndRetractsDelivered();
    void reorgRetractsARowSentWithoutAnAnswer_data() { test::StoreRows::backendRows(); }
    void reorgRetractsARowSentWithoutAnAnswer();
    void aDeeperReorgKeepsAPendingRetraction_data() { test::StoreRows::backendRows(); }
    void aDeeperReorgKeepsAPendingRetraction();
    void killBetweenConfirmationAndBookkeeping_data() { test::StoreRows::backendRows(); }
    void killBetweenConfirmationAndBookkeeping();
    void fileSinkAppendsJsonLines_data() { test::StoreRows::backendRows(); }
    void fileSinkAppendsJsonLines();
    void flappingSinkGetsEveryKeyOnce_data();
    void flappingSinkGetsEveryKeyOnce();
    void killDuringWebhookBatchResendsThatBatch_data() { test::StoreRows::backendRows(); }
    void killDuringWebhookBatchResendsThatBatch();
    void killDuringJsonLinesBatchRewritesThatBatch_data() { test::StoreRows::backendRows(); }
    void killDuringJsonLinesBatchRewritesThatBatch();
    void webhookBatchFlagIsChecked_data();
    void webhookBatchFlagIsChecked();
    void refusedRowIsMarkedFailedAndShown_data() { test::StoreRows::backendRows(); }
    void refusedRowIsMarkedFailedAndShown();
    void archivedEnvironmentDeliversNothing_data() { test::StoreRows::backendRows(); }
    void archivedEnvironmentDeliversNothing();

private:
    test::StoreRows m_stores;
};

void TestOutbox::refusedRowIsMarkedFailedAndShown()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(2, 2, 10);
    WebhookRecorder hook({422}); // the receiver refuses the first row for good
    VERIFY_EXIT_OK(lab.runIndex(
        "env", {"--exit-when-synced", "--poll-ms", kPollMs, "--webhook", hook.url().toString()}));
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE failed_at IS NOT NULL AND last_error "
                       "LIKE '%HTTP 422%'"),
             1);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL"),
             lab.count("SELECT count(*) FROM outbox") - 1);
    QCOMPARE(hook.requests().size(), int(lab.count("SELECT count(*) FROM outbox"))); // not retried
}

void TestOutbox::archivedEnvironmentDeliversNothing()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(2, 2, 10);
    VERIFY_EXIT_OK(
        lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs})); // no sink: rows wait
    const qint64 rows = lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL");
    QVERIFY(rows > 0);
    {
        // What a lab reset does to the old environment.
        QString restored;
        const auto book = store::openEnvironmentBook(lab.db(), &restored);
        book->begin();
        book->archive("env", "2026-11-30T00:00:00.000Z");
        book->commit();
    }
    struct CountingSink : outbox::OutboxSink
    {
        int calls = 0;
        QString describe() const override { return "counting"; }
        outbox::DeliveryResult deliver(const QList<outbox::OutboxRow>&) override
        {
            ++calls;
            return {outbox::DeliveryResult::Outcome::Delivered, {}};
        }
    } sink;
    const auto queue = store::openOutboxQueue(lab.db(), "env", 31337);
    outbox::OutboxDispatcher dispatcher(*queue, sink);
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
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(10, 3, 10); // 31 rows over blocks 1..11
    // Three 500s, one request left hanging (a timeout), one 503, then all good.
    WebhookRecorder hook({500, 500, 500, 0, 503});
    const ProcessRun run =
        lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs, "--confirmations", "4",
                             "--webhook", hook.url().toString(), "--webhook-timeout-ms", "300"});
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
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(12, 2, 10);
    WebhookRecorder hook;
    // Confirmations 3: the last 3 blocks' rows are not delivered yet.
    VERIFY_EXIT_OK(
        lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs, "--confirmations", "3",
                             "--webhook", hook.url().toString()}));
    const QList<QByteArray> acceptedBefore = hook.acceptedKeys();
    const QSet<QByteArray> deliveredBefore(acceptedBefore.begin(), acceptedBefore.end());
    const QList<QByteArray> pendingBefore = keysInOutboxOrder(lab, "delivered_at IS NULL");
    QCOMPARE(pendingBefore.size(), 3 * 2);

    // Depth 5: reorgs 3 undelivered blocks and 2 delivered ones.
    lab.reorg(5);
    const ProcessRun run =
        lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs, "--confirmations", "0",
                             "--webhook", hook.url().toString()});
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

    // A deeper reorg over the rows already retracted: it counts, and retracts, only the
    // rows delivered since, never the earlier ones again.
    lab.reorg(7);
    VERIFY_EXIT_OK(
        lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs, "--confirmations", "0",
                             "--webhook", hook.url().toString()}));
    QSet<QByteArray> secondRetractions;
    for (const auto& r : hook.requests())
        if (r.idempotencyKey.startsWith("retract:") && r.status == 200 &&
            !retractions.contains(r.idempotencyKey))
            secondRetractions << r.idempotencyKey;
    QVERIFY(!secondRetractions.isEmpty());
    QCOMPARE(lab.count("SELECT delivered_outbox_rows FROM reorg_events ORDER BY id DESC LIMIT 1"),
             qint64(secondRetractions.size()));
    // Its diff names those rows, not the ones the first reorg retracted: those stay as they
    // were, and are the first reorg's.
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_diff_items WHERE kind = "
                       "'outbox_delivered_reorged' AND reorg_id = (SELECT max(id) FROM "
                       "reorg_events)"),
             qint64(secondRetractions.size()));
    const QStringList after = lab.verify("env");
    QVERIFY2(after.isEmpty(), qPrintable(after.join('\n')));
}

void TestOutbox::reorgRetractsARowSentWithoutAnAnswer()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(6, 3, 10);
    WebhookRecorder hook;
    // The receiver takes the 6th row; the process dies before it records the answer.
    const ProcessRun crashed = runUntilTheSixthAnswer(lab, hook);
    QVERIFY2(crashed.exitStatus == QProcess::CrashExit, qPrintable(crashed.describe()));
    const QList<QByteArray> before = hook.acceptedKeys();
    QCOMPARE(before.size(), 6);
    const QByteArray unanswered = before.at(5);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND event_key = ?",
                       {QString::fromUtf8(unanswered)}),
             1);

    // A reorg replaces its block and every block after it, before it is sent again.
    const qint64 block = unanswered.split(':').value(1).toLongLong();
    QVERIFY(block > 0);
    lab.reorg(int(qint64(lab.eth().blockNumber()) - block + 1));
    VERIFY_EXIT_OK(lab.runIndex(
        "env", {"--exit-when-synced", "--poll-ms", kPollMs, "--webhook", hook.url().toString()}));
    const QList<QByteArray> after = hook.acceptedKeys();
    // The consumer, who has it, hears that it is gone, and never gets it again; so for every
    // row delivered from the replaced blocks.
    QVERIFY2(after.contains("retract:" + unanswered), unanswered.constData());
    QCOMPARE(after.count(unanswered), 1);
    for (const QByteArray& k : before)
        if (k.split(':').value(1).toLongLong() >= block)
            QVERIFY2(after.contains("retract:" + k), k.constData());
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_diff_items WHERE kind = "
                       "'outbox_unconfirmed_retracted' AND event_key = ?",
                       {QString::fromUtf8(unanswered)}),
             1);
    const QStringList problems = lab.verify("env");
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TestOutbox::aDeeperReorgKeepsAPendingRetraction()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    // Empty blocks below the Transfers: the second reorg below reaches no delivered row that
    // still has its log, only the first reorg's retractions.
    const qint64 deployed = qint64(lab.eth().blockNumber());
    lab.mine(3);
    const qint64 fork1 = qint64(lab.eth().blockNumber());
    lab.sprayAll(6, 2, 10);
    WebhookRecorder hook;
    VERIFY_EXIT_OK(
        lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs, "--confirmations", "2",
                             "--webhook", hook.url().toString()}));
    QList<QByteArray> deliveredAbove;
    for (const QByteArray& k : hook.acceptedKeys())
        if (k.split(':').value(1).toLongLong() > fork1)
            deliveredAbove << k;
    QVERIFY(deliveredAbove.size() >= 4);

    // The first reorg retracts them; no sink runs, so the retractions wait.
    lab.reorg(int(qint64(lab.eth().blockNumber()) - fork1));
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs}));
    const auto pendingRetractions = [&lab](qint64 at) {
        return lab.count("SELECT count(*) FROM outbox WHERE event_key LIKE 'retract:%' AND "
                         "delivered_at IS NULL AND block_number = ?",
                         {at});
    };
    QCOMPARE(pendingRetractions(fork1), qint64(deliveredAbove.size()));

    // A deeper one, below the first fork: the retractions move down to its fork, and go out.
    const qint64 fork2 = deployed + 1;
    lab.reorg(int(qint64(lab.eth().blockNumber()) - fork2));
    VERIFY_EXIT_OK(
        lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs, "--confirmations", "0",
                             "--webhook", hook.url().toString()}));
    QCOMPARE(lab.count("SELECT fork_block_number FROM reorg_events ORDER BY id DESC LIMIT 1"),
             fork2);
    // It changed no outbox row: the retractions it moved are not in its diff, nor the rows
    // they retract.
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_diff_items WHERE kind LIKE 'outbox%' AND "
                       "reorg_id = (SELECT max(id) FROM reorg_events)"),
             0);
    const QList<QByteArray> accepted = hook.acceptedKeys();
    for (const QByteArray& k : deliveredAbove)
        QVERIFY2(accepted.count("retract:" + k) == 1, k.constData());
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE event_key LIKE 'retract:%' AND "
                       "block_number = ?",
                       {fork2}),
             qint64(deliveredAbove.size()));
    const QStringList problems = lab.verify("env");
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TestOutbox::killBetweenConfirmationAndBookkeeping()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(6, 3, 10);
    WebhookRecorder hook;
    const ProcessRun crashed = runUntilTheSixthAnswer(lab, hook);
    QVERIFY2(crashed.exitStatus == QProcess::CrashExit, qPrintable(crashed.describe()));
    QCOMPARE(hook.acceptedKeys().size(), 6); // the 6th was confirmed, then the process died

    VERIFY_EXIT_OK(lab.runIndex(
        "env", {"--exit-when-synced", "--poll-ms", kPollMs, "--webhook", hook.url().toString()}));
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
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(3, 2, 10);
    const QString file = lab.tempPath("events.jsonl");
    VERIFY_EXIT_OK(
        lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs, "--outbox-file", file}));
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

void TestOutbox::flappingSinkGetsEveryKeyOnce_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("batch");
    QTest::addColumn<QList<int>>("script");
    QTest::addColumn<quint32>("seed"); // 0: alternating failures, else a seeded 50% pattern
    const QList<int> fiveFailures{500, 500, 500, 500, 500};
    for (const QString& b : test::StoreRows::backends()) {
        const QByteArray n = b.toLatin1();
        QTest::addRow("%s, one row per request, every other one fails", n.constData())
            << b << 1 << QList<int>{} << 0u;
        QTest::addRow("%s, one row per request, 5 failures then every other", n.constData())
            << b << 1 << fiveFailures << 0u;
        QTest::addRow("%s, one row per request, 50%% at random", n.constData())
            << b << 1 << QList<int>{} << 2026u;
        QTest::addRow("%s, batches of 8, every other one fails", n.constData())
            << b << 8 << QList<int>{} << 0u;
        QTest::addRow("%s, batches of 8, 50%% at random", n.constData())
            << b << 8 << QList<int>{} << 2026u;
    }
}

void TestOutbox::flappingSinkGetsEveryKeyOnce()
{
    QFETCH(int, batch);
    QFETCH(QList<int>, script);
    QFETCH(quint32, seed);
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(20, 3, 10); // 61 rows over blocks 1..21
    WebhookRecorder hook(script);
    hook.setPattern(seed ? WebhookRecorder::flapping(seed) : WebhookRecorder::alternating());
    QStringList args{"--exit-when-synced",
                     "--poll-ms",
                     kPollMs,
                     "--confirmations",
                     "2",
                     "--webhook",
                     hook.url().toString(),
                     "--webhook-timeout-ms",
                     kHookTimeout};
    if (batch > 1)
        args << "--webhook-batch" << QString::number(batch);
    // Before the failure streak drove the wait, the wait grew with every round that ended
    // on a failure, successes or not, up to 25.6 s: this run did not end within minutes.
    const ProcessRun run =
        lab.runIndex("env", args, {}, QProcessEnvironment::systemEnvironment(), 90000);
    VERIFY_EXIT_OK(run);
    const qint64 safe = qint64(lab.eth().blockNumber()) - 2;
    const QString safeText = QString::number(safe);

    // Every row at or below the safe height accepted exactly once, in order; none above.
    const QList<QByteArray> expected = keysInOutboxOrder(lab, "block_number <= " + safeText);
    QVERIFY(expected.size() >= 50);
    // Says, if it ever fails, what the store thought of the rows the receiver never took.
    QVERIFY2(hook.acceptedEventKeys().size() == expected.size(),
             qPrintable(QStringLiteral("%1 of %2 rows accepted in %3 requests; the run: %4\n"
                                       "checkpoint: %5\noutbox rows (block, delivered, "
                                       "failed, attempts, error):\n%6")
                            .arg(hook.acceptedEventKeys().size())
                            .arg(expected.size())
                            .arg(hook.requests().size())
                            .arg(run.describe())
                            .arg(lab.rows("SELECT block_number FROM indexer_checkpoints").join(' '))
                            .arg(lab.rows("SELECT block_number || ' ' || coalesce(delivered_at, "
                                          "'-') || ' ' || coalesce(failed_at, '-') || ' ' || "
                                          "attempts || ' ' || coalesce(last_error, '-') FROM "
                                          "outbox ORDER BY block_number")
                                     .join('\n'))));
    QCOMPARE(hook.acceptedEventKeys(), expected);
    QCOMPARE(
        lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL AND block_number <= " +
                  safeText),
        0);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL AND "
                       "block_number > " +
                       safeText),
             0);
    QVERIFY(lab.count("SELECT count(*) FROM outbox WHERE block_number > " + safeText) > 0);
    // A row delivered after a retry still says why it waited, on either store.
    QVERIFY(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL AND attempts "
                      "> 1") > 0);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL AND attempts "
                       "> 1 AND (last_error IS NULL OR last_error NOT LIKE '%HTTP 500%')"),
             0);
    int accepted = 0;
    for (qsizetype i = 0; i < hook.requests().size(); ++i) {
        const WebhookRecorder::Request& r = hook.requests().at(i);
        for (qint64 b : blocksIn(r))
            QVERIFY2(b <= safe,
                     qPrintable(QStringLiteral("block %1 above safe %2").arg(b).arg(safe)));
        if (r.status == 200)
            ++accepted;
        if (batch == 1)
            continue;
        // Batch mode: an array of at most `batch` rows under the key batch:<first>..<last>,
        // and a failed batch comes again as the same batch.
        const QList<QByteArray> keys = WebhookRecorder::batchEventKeys(r.body);
        QVERIFY(!keys.isEmpty() && keys.size() <= batch);
        QCOMPARE(r.idempotencyKey, "batch:" + keys.first() + ".." + keys.last());
        if (r.status != 200 && i + 1 < hook.requests().size())
            QCOMPARE(hook.requests().at(i + 1).body, r.body);
    }
    // Bounded attempts: the sink answered "no" about as often as "yes" (the script's five
    // failures aside), and every attempt after a success is one that could succeed.
    const int failures = int(hook.requests().size()) - accepted;
    QVERIFY2(
        failures <= 2 * accepted + script.size() + 4,
        qPrintable(
            QStringLiteral("%1 failures for %2 accepted requests").arg(failures).arg(accepted)));
    QVERIFY(accepted <= (expected.size() + batch - 1) / batch + 2);
}

void TestOutbox::killDuringWebhookBatchResendsThatBatch()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(10, 3, 10); // 31 rows: batches of 5
    WebhookRecorder hook;
    const QStringList args{"--exit-when-synced",  "--poll-ms",       kPollMs, "--webhook",
                           hook.url().toString(), "--webhook-batch", "5"};
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("FORKSCOPE_CRASH_AT", "mid-delivery");
    env.insert("FORKSCOPE_CRASH_AFTER", "2");
    const ProcessRun crashed = lab.runIndex("env", args, {}, env);
    QVERIFY2(crashed.exitStatus == QProcess::CrashExit, qPrintable(crashed.describe()));
    QCOMPARE(hook.requests().size(), 3); // the third batch was confirmed, then the process died
    const WebhookRecorder::Request inFlight = hook.requests().at(2);
    QCOMPARE(WebhookRecorder::batchEventKeys(inFlight.body).size(), 5);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL"), 10);

    VERIFY_EXIT_OK(lab.runIndex("env", args));
    // The restart sends that batch first, the same rows under the same key; nothing else
    // twice. Deduplicated on eventKey, the consumer has every row exactly once.
    QCOMPARE(hook.requests().at(3).idempotencyKey, inFlight.idempotencyKey);
    QCOMPARE(hook.requests().at(3).body, inFlight.body);
    const QList<QByteArray> all = keysInOutboxOrder(lab, "1 = 1");
    const QList<QByteArray> accepted = hook.acceptedEventKeys();
    QCOMPARE(accepted.size(), all.size() + 5);
    QList<QByteArray> deduped;
    for (const QByteArray& k : accepted)
        if (!deduped.contains(k))
            deduped << k;
    QCOMPARE(deduped, all);
    for (const QByteArray& k : WebhookRecorder::batchEventKeys(inFlight.body))
        QCOMPARE(accepted.count(k), 2);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL"), 0);
}

void TestOutbox::killDuringJsonLinesBatchRewritesThatBatch()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken("AAA");
    lab.sprayAll(10, 3, 10); // 31 rows over blocks 1..11
    const QString file = lab.tempPath("events.jsonl");
    // First run: the rows 5 blocks deep go out (batch A).
    VERIFY_EXIT_OK(lab.runIndex("env", {"--exit-when-synced", "--poll-ms", kPollMs,
                                        "--confirmations", "5", "--outbox-file", file}));
    const QString safe = QString::number(qint64(lab.eth().blockNumber()) - 5);
    const QList<QByteArray> a = keysInOutboxOrder(lab, "block_number <= " + safe);
    const QList<QByteArray> b = keysInOutboxOrder(lab, "block_number > " + safe);
    QVERIFY(!a.isEmpty() && !b.isEmpty());
    QCOMPARE(jsonLinesKeys(file), a);

    // Second run: the rest goes out as one batch (B), written and synced, and the process
    // dies before marking it delivered.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("FORKSCOPE_CRASH_AT", "mid-delivery");
    env.insert("FORKSCOPE_CRASH_AFTER", "0");
    const QStringList args{"--exit-when-synced", "--poll-ms", kPollMs, "--confirmations", "0",
                           "--outbox-file",      file};
    const ProcessRun crashed = lab.runIndex("env", args, {}, env);
    QVERIFY2(crashed.exitStatus == QProcess::CrashExit, qPrintable(crashed.describe()));
    QCOMPARE(jsonLinesKeys(file), a + b);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL"), b.size());

    // Third run: exactly batch B again, the same keys in the same order; A never again.
    VERIFY_EXIT_OK(lab.runIndex("env", args));
    QCOMPARE(jsonLinesKeys(file), a + b + b);
    QCOMPARE(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL"), 0);
}

void TestOutbox::webhookBatchFlagIsChecked_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("mentions");
    const QList<std::pair<const char*, QStringList>> cases{
        {"zero", {"--webhook", "http://127.0.0.1:9/h", "--webhook-batch", "0"}},
        {"too big", {"--webhook", "http://127.0.0.1:9/h", "--webhook-batch", "501"}},
        {"not a number", {"--webhook", "http://127.0.0.1:9/h", "--webhook-batch", "many"}},
        {"without a webhook", {"--outbox-file", "/tmp/x.jsonl", "--webhook-batch", "5"}}};
    const QStringList mentions{"expected 1 to 500", "expected 1 to 500", "--webhook-batch",
                               "needs --webhook"};
    // The same checks before either store is touched: a SQLite file, a shared PostgreSQL
    // index (a URL where no server listens: the line must not be a connection error).
    const QList<std::pair<const char*, QString>> stores{
        {"sqlite", "/tmp/never-created.sqlite"},
        {"postgresql", "postgresql://postgres@127.0.0.1:9/never"}};
    for (const auto& [store, db] : stores)
        for (qsizetype i = 0; i < cases.size(); ++i)
            QTest::addRow("%s, %s", store, cases[i].first)
                << (QStringList{"--db", db} + cases[i].second) << mentions[i];
}

void TestOutbox::webhookBatchFlagIsChecked()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, mentions);
    const ProcessRun r =
        test::runForkscope(QStringList{"index", "--rpc", "http://127.0.0.1:9", "--env", "e",
                                       "--contract", "0x5fbdb2315678afecb367f032d93f642f64180aa3"} +
                           extra);
    VERIFY_ONE_ERROR_LINE(r, 2, QStringList({"--webhook-batch", mentions}));
    QVERIFY(!QFile::exists("/tmp/never-created.sqlite"));
}

QTEST_GUILESS_MAIN(TestOutbox)
#include "tst_outbox.moc"
