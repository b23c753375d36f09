// Balances on a shared PostgreSQL database folded late: a backfill leaves its Transfers to
// the `token_balances` view and folds them into balance_store once about enough wait, on a
// connection of its own beside its next commits (store/pg/PgBalanceFolds.h). Real anvil,
// throwaway cluster; every balance checked against the node's own logs.
#include "IndexerLab.h"
#include "SharedWriter.h"
#include "lab/PgLab.h"
#include "store/pg/PgBalanceFolds.h"
#include "store/pg/PgCommittedDeltas.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgError.h"

#include <QtTest>

using namespace forkscope;
using store::pg::PgBalanceFolds;
using store::pg::PgCommittedDeltas;
using store::pg::PgConnection;
using test::InProcessWriter;
using test::stepUntilSynced;

class TestBalanceFolds : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void balancesFoldedLateReadAsFoldedAtEveryMove_data();
    void balancesFoldedLateReadAsFoldedAtEveryMove();
    void aContractAddedWhileBalancesWaitCountsOnce();
    void aFoldDecidedOnAMovedRowWritesNothing_data();
    void aFoldDecidedOnAMovedRowWritesNothing();
    void aFoldTakesTheBatchesItsWriterCommitted_data();
    void aFoldTakesTheBatchesItsWriterCommitted();
    void aFoldAddsRememberedDeltasOnlyWhileTheirBlockStands_data();
    void aFoldAddsRememberedDeltasOnlyWhileTheirBlockStands();

private:
    void checkAgainstNode(PgConnection& db, const QString& env, qint64 head)
    {
        test::checkSharedAgainstNode(*m_lab, db, env, head);
    }
    // Indexes the chain into `env` with every Transfer left to the views (no fold in the
    // backfill); says where its checkpoint stands.
    bool syncedAllWaiting(const QString& env, qint64* checkpoint)
    {
        {
            InProcessWriter writer(*m_lab, m_cluster.url(), env, QStringLiteral("writer"),
                                   std::chrono::milliseconds(30000), 1'000'000'000);
            if (!stepUntilSynced({&writer}, 200))
                return false;
        }
        *checkpoint = PgConnection::open(m_cluster.url())
                          ->run("t_synced_cp",
                                "SELECT block_number FROM checkpoint_store WHERE environment_id "
                                "= $1",
                                {env.toUtf8()})
                          .int64(0, 0);
        return true;
    }

    std::unique_ptr<test::IndexerLab> m_lab;
    lab::PgLab m_cluster;
};

void TestBalanceFolds::initTestCase()
{
    m_lab = test::twoTokenChain();
    m_cluster.start();
}

void TestBalanceFolds::balancesFoldedLateReadAsFoldedAtEveryMove_data()
{
    QTest::addColumn<qint64>("foldAfter");
    QTest::addColumn<bool>("allWait"); // the whole backfill is left to the views
    QTest::newRow("every few ranges") << qint64(40) << false;
    QTest::newRow("never in a backfill") << qint64(1'000'000'000) << true;
}

void TestBalanceFolds::balancesFoldedLateReadAsFoldedAtEveryMove()
{
    QFETCH(qint64, foldAfter);
    QFETCH(bool, allWait);
    // The same chain into two environments: one folds its Transfers into balance_store at
    // every checkpoint move, the other only once about `foldAfter` wait, or when something
    // needs them stored.
    m_lab->sprayAll(3, 2, 12); // Transfers in the blocks the reorg below replaces
    const QString row = QString::number(foldAfter);
    const QString eagerEnv = QStringLiteral("fold-eager-") + row;
    const QString lateEnv = QStringLiteral("fold-late-") + row;
    InProcessWriter eager(*m_lab, m_cluster.url(), eagerEnv, QStringLiteral("eager"),
                          std::chrono::milliseconds(30000), 0);
    InProcessWriter late(*m_lab, m_cluster.url(), lateEnv, QStringLiteral("late"),
                         std::chrono::milliseconds(30000), foldAfter);
    QVERIFY(stepUntilSynced({&eager, &late}, 200));
    auto db = PgConnection::open(m_cluster.url());
    const auto unfolded = [&](const QString& env) {
        return db
            ->run("t_fold_unfolded",
                  "SELECT c.block_number - coalesce(f.balances_block, c.block_number) FROM "
                  "checkpoint_store c LEFT JOIN balance_fold_store f USING (environment_id, "
                  "chain_id) WHERE c.environment_id = $1",
                  {env.toUtf8()})
            .int64(0, 0);
    };
    QCOMPARE(unfolded(eagerEnv), 0);
    if (allWait)
        QVERIFY(unfolded(lateEnv) > 50);
    const qint64 head = qint64(m_lab->eth().blockNumber());
    checkAgainstNode(*db, eagerEnv, head);
    checkAgainstNode(*db, lateEnv, head);
    if (QTest::currentTestFailed())
        return;

    // A rollback takes back what the removed Transfers added to balance_store: the late
    // environment folds first, so both record the same balance changes.
    m_lab->reorg(3);
    QVERIFY(stepUntilSynced({&eager, &late}, 200));
    const auto diff = [&](const QString& env) {
        const auto r = db->run("t_fold_diff",
                               "SELECT contract, holder, coalesce(before_value, '-'), "
                               "coalesce(after_value, '-') FROM reorg_diff_items WHERE "
                               "environment_id = $1 AND kind = 'balance_changed' ORDER BY "
                               "contract, holder",
                               {env.toUtf8()});
        QStringList rows;
        for (int i = 0; i < r.rows(); ++i)
            rows << QString::fromUtf8(r.text(i, 0) + ' ' + r.text(i, 1) + ' ' + r.text(i, 2) + ' ' +
                                      r.text(i, 3));
        return rows;
    };
    QVERIFY(!diff(eagerEnv).isEmpty());
    QCOMPARE(diff(lateEnv), diff(eagerEnv));
    QCOMPARE(unfolded(lateEnv), 0);
    const qint64 after = qint64(m_lab->eth().blockNumber());
    checkAgainstNode(*db, eagerEnv, after);
    checkAgainstNode(*db, lateEnv, after);
}

void TestBalanceFolds::aContractAddedWhileBalancesWaitCountsOnce()
{
    // One token indexed, its Transfers all left to the views; the other token then added:
    // its backfill stores its balances below the checkpoint, so what waits is folded first
    // and nothing is counted twice.
    const QString env = QStringLiteral("fold-added");
    const QList<chain::Address> both = m_lab->contracts();
    const auto joined = [&] {
        auto db = PgConnection::open(m_cluster.url());
        return db->run("t_fold_joined",
                       "SELECT count(*) FROM contract_sources WHERE environment_id = $1 AND "
                       "state = 'joined'",
                       {env.toUtf8()})
                   .int64(0, 0) == 1;
    };
    {
        InProcessWriter first(*m_lab, m_cluster.url(), env, QStringLiteral("first"),
                              std::chrono::milliseconds(30000), 1'000'000'000, {both.first()});
        QVERIFY(stepUntilSynced({&first}, 200));
    }
    auto db = PgConnection::open(m_cluster.url());
    QVERIFY(db->run("t_fold_waiting",
                    "SELECT c.block_number - f.balances_block FROM checkpoint_store c JOIN "
                    "balance_fold_store f USING (environment_id, chain_id) WHERE "
                    "c.environment_id = $1",
                    {env.toUtf8()})
                .int64(0, 0) > 50);
    InProcessWriter again(*m_lab, m_cluster.url(), env, QStringLiteral("again"),
                          std::chrono::milliseconds(30000), 1'000'000'000, both);
    for (int round = 0; round < 400 && !(again.synced() && joined()); ++round)
        again.indexer.step();
    QVERIFY(joined());
    checkAgainstNode(*db, env, qint64(m_lab->eth().blockNumber()));
}

void TestBalanceFolds::aFoldDecidedOnAMovedRowWritesNothing_data()
{
    QTest::addColumn<QString>("meanwhile");
    QTest::addColumn<bool>("takesEffect");
    QTest::newRow("nothing") << QStringLiteral("nothing") << true;
    QTest::newRow("a rollback, the row at the same block") << QStringLiteral("rollback") << false;
    QTest::newRow("the checkpoint below the fold") << QStringLiteral("above") << false;
    QTest::newRow("its connection killed") << QStringLiteral("killed") << false;
    QTest::newRow("the row held past its lock timeout") << QStringLiteral("held") << false;
}

void TestBalanceFolds::aFoldDecidedOnAMovedRowWritesNothing()
{
    QFETCH(QString, meanwhile);
    QFETCH(bool, takesEffect);
    // Everything indexed is left to the views; a fold is decided on the row as it stands,
    // then sent while another transaction holds the row and, in some rows, moves it.
    const QString env = QStringLiteral("fold-gate-") + meanwhile;
    qint64 checkpoint = -1;
    QVERIFY(syncedAllWaiting(env, &checkpoint));
    auto db = PgConnection::open(m_cluster.url());
    const QList<QByteArray> scope{env.toUtf8(), QByteArray("31337")};
    const bool held = meanwhile == QLatin1String("held");
    PgBalanceFolds folds(m_cluster.url(), QStringLiteral("gate"), scope[0], scope[1],
                         held ? 300 : 10'000);
    const PgBalanceFolds::Mark decided = folds.read(*db, false);
    QVERIFY(decided.block && *decided.block < checkpoint - 50);
    const qint64 upTo = meanwhile == QLatin1String("above") ? checkpoint + 5 : checkpoint;
    const qint64 before =
        db->run("t_gate_before", "SELECT count(*) FROM transfer_events WHERE environment_id = $1",
                {scope[0]})
            .int64(0, 0);

    auto holder = PgConnection::open(m_cluster.url());
    holder->begin();
    QCOMPARE(folds.read(*holder, true).epoch, decided.epoch);
    folds.send({decided, upTo});
    // The fold waits for the row: its snapshot is taken, from before what happens next. One
    // past the checkpoint never even asks for it.
    if (meanwhile != QLatin1String("above") && !held)
        QTRY_VERIFY_WITH_TIMEOUT(
            db->run(
                  "t_gate_waits",
                  "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'forkscope gate "
                  "(balance folds)' AND wait_event_type = 'Lock'")
                    .int64(0, 0) == 1,
            10'000);
    if (meanwhile == QLatin1String("rollback")) {
        // As a rollback to the middle of the Transfers, then a deferral from the same block
        // as before, would leave it: the row at the block the fold was decided on, what the
        // fold's snapshot holds above the fork gone.
        const qint64 fork =
            db->run("t_gate_middle",
                    "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY block_number) FROM "
                    "log_store WHERE environment_id = $1 AND transfer_value IS NOT NULL",
                    {scope[0]})
                .int64(0, 0);
        const QList<QByteArray> at = scope + QList<QByteArray>{QByteArray::number(fork)};
        holder->run("t_gate_logs",
                    "DELETE FROM log_store WHERE environment_id = $1 AND chain_id = $2 AND "
                    "block_number > $3",
                    at);
        holder->run("t_gate_cp_back",
                    "UPDATE checkpoint_store c SET block_number = b.block_number, block_hash = "
                    "b.block_hash FROM block_store b WHERE c.environment_id = $1 AND "
                    "c.chain_id = $2 AND b.environment_id = $1 AND b.chain_id = $2 AND "
                    "b.block_number = $3",
                    at);
        holder->run("t_gate_blocks",
                    "DELETE FROM block_store WHERE environment_id = $1 AND chain_id = $2 AND "
                    "block_number > $3",
                    at);
        holder->run("t_gate_epoch",
                    "UPDATE balance_fold_store SET epoch = epoch + 2 WHERE environment_id = $1 "
                    "AND chain_id = $2",
                    scope);
    }
    qint64 written = 0;
    if (meanwhile == QLatin1String("killed")) {
        // The writer hears it at its next commit, in one line, and nothing was written.
        db->exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                 "application_name = 'forkscope gate (balance folds)'");
        holder->commit();
        QString said;
        QTRY_VERIFY_WITH_TIMEOUT(([&] {
                                     try {
                                         folds.running();
                                     } catch (const store::pg::PgError& e) {
                                         said = e.message();
                                     }
                                     return !said.isEmpty();
                                 }()),
                                 10'000);
        QVERIFY2(said.contains(QStringLiteral("folding the balances of blocks %1-%2 failed, "
                                              "nothing of it written")
                                   .arg(*decided.block + 1)
                                   .arg(upTo)),
                 qPrintable(said));
        QVERIFY(!folds.running());
    } else if (held) {
        // Another writer's fold would hold it so: this one gives up, quietly, nothing written.
        QTRY_VERIFY_WITH_TIMEOUT(!folds.running(), 10'000);
        QCOMPARE(folds.read(*db, false).block.value_or(-1), *decided.block);
        holder->commit();
    } else {
        holder->commit();
        written = folds.await();
    }
    QCOMPARE(written > 0, takesEffect);
    const PgBalanceFolds::Mark after = folds.read(*db, false);
    QCOMPARE(after.block.value_or(-1), takesEffect ? upTo : *decided.block);

    // The views equal the sum of the Transfers they show: with the node's up to the
    // checkpoint when nothing was removed, or with what the rollback left.
    if (meanwhile != QLatin1String("rollback")) {
        checkAgainstNode(*db, env, checkpoint);
        if (meanwhile != QLatin1String("killed"))
            return;
        // The next fold, on a new connection, takes the blocks the killed one left.
        folds.send({after, checkpoint});
        QVERIFY(folds.await() > 0);
        QCOMPARE(folds.read(*db, false).block.value_or(-1), checkpoint);
        checkAgainstNode(*db, env, checkpoint);
        return;
    }
    const auto differing = db->run(
        "t_gate_invariant",
        "WITH sides AS (SELECT contract, to_addr AS holder, value::numeric AS d FROM "
        "transfer_events WHERE environment_id = $1 UNION ALL SELECT contract, from_addr, "
        "-value::numeric FROM transfer_events WHERE environment_id = $1), w AS (SELECT contract, "
        "holder, sum(d) AS balance, count(*) AS sides FROM sides WHERE holder <> "
        "'0x0000000000000000000000000000000000000000' GROUP BY contract, holder) SELECT count(*) "
        "FROM w FULL JOIN (SELECT * FROM token_balances WHERE environment_id = $1) t ON "
        "t.contract = w.contract AND t.holder = w.holder WHERE t.balance::numeric IS DISTINCT "
        "FROM w.balance OR t.transfer_sides IS DISTINCT FROM w.sides",
        {scope[0]});
    QCOMPARE(differing.int64(0, 0), 0);
    const qint64 left =
        db->run("t_gate_left", "SELECT count(*) FROM transfer_events WHERE environment_id = $1",
                {scope[0]})
            .int64(0, 0);
    QVERIFY(left > 0 && left < before);
}

QTEST_GUILESS_MAIN(TestBalanceFolds)
#include "tst_balancefolds.moc"

namespace {

using Span = std::pair<qint64, qint64>;

// A remembered batch of blocks `first` to `last` whose one holder row says which it is.
store::pg::BatchBalances markedBatch(qint64 first, qint64 last)
{
    store::pg::BatchBalances b;
    b.first = first;
    b.last = last;
    QByteArray holder(20, '\0');
    holder[19] = char(first);
    const indexer::HolderKey key{chain::Address{},
                                 chain::Address::fromBytes(holder, QStringLiteral("holder"))};
    b.deltas.add(key, {indexer::SignedAmount(first), 1, std::uint64_t(last)});
    b.deltas.merge();
    return b;
}

} // namespace

void TestBalanceFolds::aFoldTakesTheBatchesItsWriterCommitted_data()
{
    QTest::addColumn<qint64>("above");
    QTest::addColumn<qint64>("upTo");
    QTest::addColumn<QList<qint64>>("checked"); // the last blocks of the batches taken
    QTest::addColumn<QList<Span>>("gaps");
    QTest::addColumn<qint64>("left"); // holder rows still remembered
    // Remembered: 11-20, 21-30, 41-50 (31-40 another writer's).
    QTest::newRow("all, the other writer's blocks read")
        << qint64(10) << qint64(50) << QList<qint64>{20, 30, 50} << QList<Span>{{30, 40}}
        << qint64(0);
    QTest::newRow("one already folded in part: read, and forgotten")
        << qint64(15) << qint64(50) << QList<qint64>{30, 50} << QList<Span>{{15, 20}, {30, 40}}
        << qint64(0);
    QTest::newRow("one past the fold stays")
        << qint64(10) << qint64(45) << QList<qint64>{20, 30} << QList<Span>{{30, 45}} << qint64(1);
    QTest::newRow("none inside: all read")
        << qint64(50) << qint64(60) << QList<qint64>{} << QList<Span>{{50, 60}} << qint64(0);
}

void TestBalanceFolds::aFoldTakesTheBatchesItsWriterCommitted()
{
    QFETCH(qint64, above);
    QFETCH(qint64, upTo);
    QFETCH(QList<qint64>, checked);
    QFETCH(QList<Span>, gaps);
    QFETCH(qint64, left);
    PgCommittedDeltas committed;
    for (const Span& b : {Span{11, 20}, Span{21, 30}, Span{41, 50}})
        committed.remember(markedBatch(b.first, b.second), QByteArray::number(b.second * 100));
    const PgCommittedDeltas::Taken taken = committed.take(above, upTo);
    QCOMPARE(taken.checks.blocks, checked);
    QList<QByteArray> xmins;
    for (qint64 b : checked)
        xmins << QByteArray::number(b * 100);
    QCOMPARE(taken.checks.xmins, xmins);
    QCOMPARE(taken.parts.gaps, gaps);
    QCOMPARE(qint64(taken.parts.deltas.size()), qint64(checked.size())); // one row per batch
    QCOMPARE(qint64(committed.holders()), left);
}

void TestBalanceFolds::aFoldAddsRememberedDeltasOnlyWhileTheirBlockStands_data()
{
    QTest::addColumn<bool>("storedAgain");
    QTest::newRow("its last block as committed") << false;
    QTest::newRow("its last block stored again since") << true;
}

void TestBalanceFolds::aFoldAddsRememberedDeltasOnlyWhileTheirBlockStands()
{
    QFETCH(bool, storedAgain);
    // A batch's remembered deltas stand for its blocks' Transfers: a marked row shows the
    // fold added them rather than reading the blocks back, and only while the block_store
    // row of the batch's last block is the one it was committed with.
    const QString env = QStringLiteral("fold-remembered-%1")
                            .arg(storedAgain ? QStringLiteral("again") : QStringLiteral("same"));
    qint64 checkpoint = -1;
    QVERIFY(syncedAllWaiting(env, &checkpoint));
    auto db = PgConnection::open(m_cluster.url());
    const QList<QByteArray> scope{env.toUtf8(), QByteArray("31337")};
    PgBalanceFolds folds(m_cluster.url(), QStringLiteral("remembered"), scope[0], scope[1]);
    const PgBalanceFolds::Mark decided = folds.read(*db, false);
    QVERIFY(decided.block && *decided.block < checkpoint - 10);
    const qint64 last = checkpoint - 5;
    const QList<QByteArray> at = scope + QList<QByteArray>{QByteArray::number(last)};
    const auto xminOf = [&] {
        return db
            ->run("t_mem_xmin",
                  "SELECT xmin FROM block_store WHERE environment_id = $1 AND chain_id = $2 AND "
                  "block_number = $3",
                  at)
            .text(0, 0);
    };
    store::pg::BatchBalances batch = markedBatch(last - 3, last);
    folds.remember(std::move(batch), xminOf());
    if (storedAgain) // as a rollback and a commit of the same block would leave it
        db->run("t_mem_again",
                "WITH gone AS (DELETE FROM block_store WHERE environment_id = $1 AND chain_id = "
                "$2 AND block_number = $3 RETURNING *) INSERT INTO block_store SELECT * FROM gone",
                at);
    folds.send({decided, checkpoint});
    const qint64 written = folds.await();
    QCOMPARE(written > 0, !storedAgain);
    QCOMPARE(folds.read(*db, false).block.value_or(-1), storedAgain ? *decided.block : checkpoint);
    const qint64 markedRows =
        db->run("t_mem_marked_rows",
                "SELECT count(*) FROM balance_store WHERE environment_id = $1 AND contract = "
                "'\\x0000000000000000000000000000000000000000'::bytea AND balance = $2",
                {scope[0], QByteArray::number(last - 3)})
            .int64(0, 0);
    QCOMPARE(markedRows, storedAgain ? 0 : 1);
}
