// The same indexer behaviour on both stores, continued (see tst_backends): what
// must survive a crash, a flapping receiver and a reorg, with the backend as a data row.
// The outbox delivered exactly once per key, killed mid-delivery too; a row refused for
// good; an indexer killed before and after its commit; a reorg rolled back and its diff
// recorded, killed mid-rollback too; a reorg deeper than the limit. Every check reads the
// contract's surface through store::ContractReader. Real anvil, real throwaway cluster.
#include "BackendLab.h"
#include "WebhookRecorder.h"
#include "coord/BackfillClaims.h"
#include "lab/ReorgInjector.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <boost/multiprecision/cpp_int.hpp>

using namespace forkscope;
using test::Backend;

class TestBackendsCrash : public QObject, public test::BackendLab
{
    Q_OBJECT
private slots:
    void initTestCase() { startLab(); }
    void outboxDeliveredOncePerKey_data();
    void outboxDeliveredOncePerKey();
    void theOutboxGoesOutInOrderBelowTheSafeHeight_data() { backends(); }
    void theOutboxGoesOutInOrderBelowTheSafeHeight();
    void aRefusedRowIsMarkedFailedNotRetried_data() { backends(); }
    void aRefusedRowIsMarkedFailedNotRetried();
    void aKilledIndexerLeavesNothingHalfWritten_data();
    void aKilledIndexerLeavesNothingHalfWritten();
    // Last: they reorganise the suite's chain.
    void aReorgIsRolledBackAndRecorded_data();
    void aReorgIsRolledBackAndRecorded();
    void aReorgDeeperThanTheLimitChangesNothing_data() { backends(); }
    void aReorgDeeperThanTheLimitChangesNothing();
    void aPlanAboveAShorterChainEndsAtItsHead();
    void aRangeStoredFromAnotherBranchIsFetchedAgain();
    void aReorgBelowTheCheckpointMidBackfillIsRolledBackBeforeExiting();

private:
    // A few blocks sprayed, the chain at least 25 tall; returns its head.
    qint64 chainForThreeRanges()
    {
        m_lab->sprayAll(std::max(3, 25 - int(m_lab->eth().blockNumber())), 2, 10);
        return qint64(m_lab->eth().blockNumber());
    }
    // `forkscope index --exit-when-synced` of blocks head - 20 to head in three ranges of 7
    // (head - 20 .. head - 14, head - 13 .. head - 7, head - 6 .. head), leases of 300 ms.
    QStringList threeRangesBelow(qint64 head, const QString& db, const QString& env) const
    {
        QStringList args = indexArgs(db, env);
        args[8] = QStringLiteral("7"); // --batch-size
        return args << QStringLiteral("--exit-when-synced") << QStringLiteral("--from-block")
                    << QString::number(head - 20) << QStringLiteral("--lease-ms")
                    << QStringLiteral("300");
    }
};

void TestBackendsCrash::outboxDeliveredOncePerKey_data()
{
    crashRows(m_lab->tempPath(QStringLiteral("backends.sqlite")), m_cluster.url(), "mid-delivery");
}

void TestBackendsCrash::outboxDeliveredOncePerKey()
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

// A receiver that fails three times over HTTP, leaves one request hanging past
// --webhook-timeout-ms and answers one 503 before accepting: each row is retried until
// accepted, once each, in the outbox's order, and only at or below the safe height (head -
// --confirmations). SQLite indexes to the head and holds the rows above back; a shared
// PostgreSQL index stops its backfill at the safe height, so it has none above.
void TestBackendsCrash::theOutboxGoesOutInOrderBelowTheSafeHeight()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("safe-height");
    m_lab->sprayAll(6, 2, 10); // rows in the blocks above the safe height
    test::WebhookRecorder hook({500, 500, 500, 0, 503});
    const test::ProcessRun run = test::runForkscope(
        indexArgs(db, env) << QStringLiteral("--exit-when-synced")
                           << QStringLiteral("--confirmations") << QStringLiteral("4")
                           << QStringLiteral("--webhook") << hook.url().toString()
                           << QStringLiteral("--webhook-timeout-ms") << QStringLiteral("300"));
    VERIFY_EXIT_OK(run);
    const qint64 safe = qint64(m_lab->eth().blockNumber()) - 4;
    Backend b(db);
    store::ContractReader& r = b.open();
    const auto count = [&](const QString& where) {
        return r.scalar(QStringLiteral("SELECT count(*) FROM outbox WHERE environment_id = ? ") +
                            where,
                        {env, safe});
    };
    QVERIFY(count(QStringLiteral("AND block_number <= ?")) > 5);
    QCOMPARE(count(QStringLiteral("AND block_number <= ? AND delivered_at IS NULL")), qint64(0));
    QCOMPARE(count(QStringLiteral("AND block_number > ? AND delivered_at IS NOT NULL")), qint64(0));
    if (!store::pg::isPostgresUrl(db))
        QVERIFY(count(QStringLiteral("AND block_number > ?")) > 0);
    QStringList ordered;
    for (auto q = r.query(QStringLiteral("SELECT event_key FROM outbox WHERE environment_id = ? "
                                         "AND block_number <= ? ORDER BY block_number, id"),
                          {env, safe});
         q->next();)
        ordered << q->value(0).toString();
    QStringList accepted;
    for (const QByteArray& k : hook.acceptedKeys())
        accepted << QString::fromUtf8(k);
    QCOMPARE(accepted, ordered); // each once, in order
    // The first row took the five failures, the hanging request among them.
    QVERIFY(r.scalar(QStringLiteral("SELECT max(attempts) FROM outbox WHERE environment_id = ?"),
                     {env}) >= 5);
    QCOMPARE(hook.requests().size(), int(ordered.size()) + 5);
}

// A receiver that refuses a row for good (HTTP 422): that row is marked failed with the
// reason and never sent again; every other row is delivered once, in the outbox's order.
void TestBackendsCrash::aRefusedRowIsMarkedFailedNotRetried()
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

void TestBackendsCrash::aKilledIndexerLeavesNothingHalfWritten_data()
{
    backendsTimes("point", {"before-commit", "after-commit"});
}

void TestBackendsCrash::aKilledIndexerLeavesNothingHalfWritten()
{
    // Killed (SIGKILL, as kill -9) at its second batch's crash point, then run again: the
    // data and the checkpoint committed together or not at all, so the second run finds a
    // consistent store and completes it, every log once.
    QFETCH(QString, db);
    QFETCH(QString, point);
    const QString env = QStringLiteral("crash-") + point;
    const QStringList args = indexArgs(db, env) << QStringLiteral("--exit-when-synced");
    QProcessEnvironment crash = QProcessEnvironment::systemEnvironment();
    crash.insert(QStringLiteral("FORKSCOPE_CRASH_AT"), point);
    crash.insert(QStringLiteral("FORKSCOPE_CRASH_AFTER"), QStringLiteral("1"));
    const test::ProcessRun killed = test::runForkscope(args, crash);
    QVERIFY2(killed.finished && killed.exitStatus == QProcess::CrashExit,
             qPrintable(killed.describe()));
    QVERIFY2(killed.err.contains(QStringLiteral("crash point %1 reached").arg(point)),
             qPrintable(killed.describe()));
    const test::ProcessRun again = test::runForkscope(args);
    VERIFY_EXIT_OK(again);
    // On PostgreSQL, killed before its commit, it left its range claimed under a 30 s lease:
    // the next process takes it over at once, the dead one's session having ended.
    if (store::pg::isPostgresUrl(db) && point == QLatin1String("before-commit"))
        QVERIFY2(again.out.contains(QStringLiteral("whose process is gone")),
                 qPrintable(again.out));
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
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

void TestBackendsCrash::aReorgIsRolledBackAndRecorded_data()
{
    crashRows(m_lab->tempPath(QStringLiteral("backends.sqlite")), m_cluster.url(), "mid-rollback");
}

void TestBackendsCrash::aReorgIsRolledBackAndRecorded()
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
        QVERIFY2(follower.waitForFinished(60'000),
                 qPrintable("the follower did not reach the rollback's crash point: " +
                            QString::fromUtf8(follower.readAllStandardOutput() +
                                              follower.readAllStandardError())
                                .right(4000)));
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
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

// A reorg deeper than --max-reorg-depth stops the follower in one line, and nothing is
// deleted; run again with a limit that covers it, the same index rolls back once.
void TestBackendsCrash::aReorgDeeperThanTheLimitChangesNothing()
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
    const auto state = [&] { return stateOf(b, env); };
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
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

// PostgreSQL only (SQLite plans no ranges): a shared backfill planned its ranges up to the
// head, then the chain got shorter (a rollback; a lagging replica looks the same). The plan
// is cut back to the new head: the next run indexes up to it and ends synced, neither
// failing the ranges above nor waiting for them; once the chain has grown past the old
// plan, another run indexes the rest. Nothing stored was wrong: nothing is rolled back.
void TestBackendsCrash::aPlanAboveAShorterChainEndsAtItsHead()
{
    const QString db = m_cluster.url();
    const QString env = QStringLiteral("shorter");
    m_lab->sprayAll(3, 2, 10);
    const qint64 planned = qint64(m_lab->eth().blockNumber());
    const QStringList args = indexArgs(db, env)
                             << QStringLiteral("--exit-when-synced") << QStringLiteral("--lease-ms")
                             << QStringLiteral("300");
    // Ranges planned up to the head; killed before its first range's commit.
    const test::ProcessRun killed = test::runForkscope(args, crashingAt("before-commit", 0));
    QVERIFY2(killed.finished && killed.exitStatus == QProcess::CrashExit,
             qPrintable(killed.describe()));
    const qint64 shorter = qint64(lab::ReorgInjector::rollback(m_lab->rpc(), 6));

    const test::ProcessRun run = test::runForkscope(args);
    VERIFY_EXIT_OK(run);
    Backend b(db);
    QCOMPARE(checkpointOf(b.open(), env), shorter);
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM backfill_ranges WHERE "
                                            "environment_id = ? AND (status <> 'done' OR to_block "
                                            "> ?)"),
                             {env, shorter}),
             qint64(0));
    b.close();

    m_lab->sprayAll(8, 2, 10); // the chain grows past the old plan
    VERIFY_EXIT_OK(test::runForkscope(args));
    QVERIFY(checkpointOf(b.open(), env) > planned);
    qint64 rows = 0;
    expectEveryLogOnce(b, env, rows);
    QVERIFY(rows > 0);
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                            "environment_id = ?"),
                             {env}),
             qint64(0));
}

// PostgreSQL only, as the next one: ranges are fetched in any order, so a reorg during a
// backfill can leave a range stored from the old branch above one stored from the new. Three
// ranges of 7 blocks below the head; a first process dies holding the lowest, a second
// stores the two above it and dies taking the lowest over; then the last 14 blocks are
// replaced, the lowest range's last block among them. A third run stores the lowest from the
// new branch: the checkpoint stops there, the next range's parent being the old block. It is
// fetched again, then the one above it, and the run ends synced, with nothing rolled back
// (the stale rows were never below the checkpoint).
void TestBackendsCrash::aRangeStoredFromAnotherBranchIsFetchedAgain()
{
    const QString db = m_cluster.url();
    const QString env = QStringLiteral("stale-range");
    const qint64 head = chainForThreeRanges();
    const QStringList args = threeRangesBelow(head, db, env);
    // Killed at the first commit, holding the lowest range. Its owner lock, taken here,
    // makes it look alive (a machine gone without closing its connection), so the range
    // stays claimed until its lease runs out: a lease long enough for the next process to
    // start and store the two ranges above it first, however busy the machine. The ranges
    // it had claimed ahead go back, as if it had fetched one at a time.
    QStringList longLease = args;
    longLease[longLease.indexOf(QStringLiteral("--lease-ms")) + 1] = QStringLiteral("4000");
    const test::ProcessRun first = test::runForkscope(longLease, crashingAt("before-commit", 0));
    QVERIFY2(first.exitStatus == QProcess::CrashExit, qPrintable(first.describe()));
    auto pg = store::pg::PgConnection::open(db);
    const QByteArray lowest = QByteArray::number(head - 20);
    const QByteArray owner = pg->run("t_owner",
                                     "SELECT owner FROM range_store WHERE environment_id = $1 "
                                     "AND status = 'running' AND from_block = $2",
                                     {env.toUtf8(), lowest})
                                 .text(0, 0);
    QVERIFY(!owner.isEmpty());
    pg->run("t_ahead_back",
            "UPDATE range_store SET status = 'pending', owner = NULL, lease_until = NULL WHERE "
            "environment_id = $1 AND status = 'running' AND from_block > $2",
            {env.toUtf8(), lowest});
    pg->run("t_owner_lock", "SELECT pg_advisory_lock($2::int, hashtext($1::text))",
            {owner, QByteArray::number(coord::BackfillClaims::kOwnerLockClass)});
    // Stores the two ranges above it, then dies taking the lowest over.
    const test::ProcessRun second = test::runForkscope(args, crashingAt("before-commit", 2));
    QVERIFY2(second.exitStatus == QProcess::CrashExit &&
                 second.out.contains(QStringLiteral("range %1-%2: taken over from %3, whose "
                                                    "lease ran out")
                                         .arg(head - 20)
                                         .arg(head - 14)
                                         .arg(QString::fromUtf8(owner))),
             qPrintable(second.describe()));
    const auto status = [&](qint64 from) {
        return pg
            ->run("t_status",
                  "SELECT status FROM range_store WHERE environment_id = $1 AND "
                  "from_block = $2",
                  {env.toUtf8(), QByteArray::number(from)})
            .text(0, 0);
    };
    QCOMPARE(status(head - 13), QByteArray("done"));
    QCOMPARE(status(head - 6), QByteArray("done"));
    QVERIFY(status(head - 20) != "done");
    pg.reset();
    lab::ReorgInjector::inject(m_lab->rpc(), 15, lab::ReorgTxMode::Keep);

    const test::ProcessRun run = test::runForkscope(args);
    VERIFY_EXIT_OK(run);
    // The range above the checkpoint, stored from the old branch, was fetched again: its
    // record says why.
    const QByteArray why = store::pg::PgConnection::open(db)
                               ->run("t_why",
                                     "SELECT last_error FROM range_store WHERE environment_id = "
                                     "$1 AND from_block = $2",
                                     {env.toUtf8(), QByteArray::number(head - 13)})
                               .text(0, 0);
    QVERIFY2(
        why.contains(
            QStringLiteral("stored from another branch than block %1").arg(head - 14).toUtf8()),
        why.constData());
    QVERIFY2(run.out.contains(QStringLiteral("synced: checkpoint %1 at head %1").arg(head)),
             qPrintable(run.out));
    Backend b(db);
    qint64 rows = 0;
    expectEveryLogOnce(b, env, rows, head - 20);
    QVERIFY(rows > 0);
    QCOMPARE(checkpointOf(b.open(), env), head);
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                            "environment_id = ?"),
                             {env}),
             qint64(0));
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

// A reorg below the checkpoint while the backfill is incomplete: the top range is then
// stored from the new branch, every range is done, and the checkpoint's own block is no
// longer the node's. `--exit-when-synced` does not call that synced: it rolls back (a
// reorg, recorded) and indexes on to its target before exiting.
void TestBackendsCrash::aReorgBelowTheCheckpointMidBackfillIsRolledBackBeforeExiting()
{
    const QString db = m_cluster.url();
    const QString env = QStringLiteral("reorg-mid-backfill");
    const qint64 head = chainForThreeRanges();
    const QStringList args = threeRangesBelow(head, db, env);
    // Stores the two lowest ranges (checkpoint head - 7), dies at the top one's commit.
    const test::ProcessRun first = test::runForkscope(args, crashingAt("before-commit", 2));
    QVERIFY2(first.exitStatus == QProcess::CrashExit, qPrintable(first.describe()));
    Backend b(db);
    QCOMPARE(checkpointOf(b.open(), env), head - 7);
    lab::ReorgInjector::inject(m_lab->rpc(), 10, lab::ReorgTxMode::Keep);

    const test::ProcessRun run = test::runForkscope(args);
    VERIFY_EXIT_OK(run);
    // Rolled back, then indexed on to the node's head before calling it synced.
    QVERIFY2(run.out.count(QStringLiteral("REORG (")) == 1 &&
                 run.out.indexOf(QStringLiteral("REORG (")) <
                     run.out.indexOf(QStringLiteral("synced: checkpoint")),
             qPrintable(run.out));
    qint64 rows = 0;
    expectEveryLogOnce(b, env, rows, head - 20);
    QCOMPARE(checkpointOf(b.open(), env), head);
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                            "environment_id = ? AND fork_block_number = ?"),
                             {env, head - 10}),
             qint64(1));
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

QTEST_GUILESS_MAIN(TestBackendsCrash)
#include "tst_backendscrash.moc"
