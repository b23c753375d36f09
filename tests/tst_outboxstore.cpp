// Contract v4's outbox (store/BinaryContract.h) through the indexer's own store, with no
// node: a Transfer's row renders its key and payload from its log; a delivered row keeps
// exactly what was sent after a reorg removes its log; when the chain comes back to that
// very block, the key is not enqueued again; a row whose log was deleted by hand is failed
// with a reason, never sent; a rollback records each balance change and each outbox row
// once. Those run on both stores through indexer::IndexStore, the backend a data row (a
// SQLite file, or a database of its own on the suite's throwaway PostgreSQL cluster). The
// SQLite file's own mechanisms below that interface run on SQLite alone: the committer's
// multi-row statements and re-projection, and a rollback's balances planned on its own
// connection or on a second one (indexer/BalanceRevertPlan.h), which must leave the same file.
#include "EnvironmentDump.h"
#include "IndexStoreLab.h"
#include "StoreLab.h"
#include "StoreRows.h"
#include "chain/Keccak.h"
#include "chain/U256.h"
#include "engine/ReorgDiffReader.h"
#include "indexer/BalanceBook.h"
#include "indexer/BatchCommitter.h"
#include "indexer/CheckpointStore.h"
#include "indexer/EnvironmentRegistry.h"
#include "indexer/ForkFinder.h"
#include "indexer/HolderDeltas.h"
#include "indexer/ReorgReason.h"
#include "indexer/ReorgRollback.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/OutboxQueue.h"
#include "store/Database.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QtTest>
#include <limits>

using namespace forkscope;

namespace {

using namespace forkscope::test;

// Plans a rollback's balances on a second connection whenever it can (0 Transfers up), or
// never (ReorgRollback::setPlanAsideFrom).
void planAside(indexer::ReorgRollback& rollback, bool aside)
{
    rollback.setPlanAsideFrom(aside ? 0 : std::numeric_limits<qint64>::max());
}

// Block 1 ("common") and block 2 ("A"): alice mints 1,000 and pays ten holders in block 1;
// in block 2 she pays five of them again and three new ones, two of the first pay bob and
// one pays itself. Rolled back to block 1, some holders keep a row with a new balance,
// some lose theirs (bob, the new ones), one is unchanged.
indexer::VerifiedBatch holdersInTwoBlocks()
{
    indexer::VerifiedBatch b;
    b.blocks << header(1, "common", "genesis") << header(2, "A", "common");
    const auto holder = [](int i) { return topicOf("holder" + QByteArray::number(i)); };
    std::uint64_t index = 0;
    const auto pay = [&](int block, const chain::Hash32& from, const chain::Hash32& to, int value) {
        b.logs << transferLog(b.blocks[block - 1], index, from, to, value,
                              "tx" + QByteArray::number(block) + '-' + QByteArray::number(index));
        ++index;
    };
    pay(1, chain::Hash32(), topicOf("alice"), 1000);
    for (int i = 0; i < 10; ++i)
        pay(1, topicOf("alice"), holder(i), 10 + i);
    index = 0;
    for (int i = 0; i < 5; ++i)
        pay(2, topicOf("alice"), holder(i), 1 + i);
    for (int i = 10; i < 13; ++i)
        pay(2, topicOf("alice"), holder(i), 2);
    pay(2, holder(6), topicOf("bob"), 3);
    pay(2, holder(7), topicOf("bob"), 4);
    pay(2, holder(8), holder(8), 5);
    return b;
}

QStringList balanceRows(store::Database& db)
{
    return test::queryRows(
        db, "SELECT contract, holder, balance, transfer_sides, updated_at_block FROM "
            "token_balances ORDER BY contract, holder");
}

// What a rollback leaves that a reader of the contract sees: the balances, the diff, the
// outbox.
QStringList contractDump(store::Database& db)
{
    return balanceRows(db) +
           test::queryRows(
               db, "SELECT reorg_id, kind, block_number, log_index, tx_hash, contract, holder, "
                   "from_addr, to_addr, value, before_value, after_value, event_key FROM "
                   "reorg_diff_items ORDER BY reorg_id, kind, block_number, log_index, "
                   "contract, holder") +
           outboxRows(db);
}

} // namespace

class TestOutboxStore : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_stores.startCluster(); }
    void deliveredRowsOutliveTheirLogsAndAreNotEnqueuedTwice_data() { StoreRows::backendRows(); }
    void deliveredRowsOutliveTheirLogsAndAreNotEnqueuedTwice();
    void aRowWithoutItsLogIsFailedNotSent_data() { StoreRows::backendRows(); }
    void aRowWithoutItsLogIsFailedNotSent();
    void anAddedContractsTransfersBelowTheCursorAreDelivered_data() { StoreRows::backendRows(); }
    void anAddedContractsTransfersBelowTheCursorAreDelivered();
    void aBatchIsStoredOnceHoweverItsRowsAreGrouped_data();
    void aBatchIsStoredOnceHoweverItsRowsAreGrouped();
    void aRollbackRecordsEachBalanceChangeOnce_data();
    void aRollbackRecordsEachBalanceChangeOnce();
    void aRollbackRecordsEachOutboxRowOnce_data();
    void aRollbackRecordsEachOutboxRowOnce();
    void bothBalancePlansLeaveTheSameFile();
    void aRollbackInACallersTransactionPlansOnItsConnection();
    void aPlanAsideThatCannotOpenTheFileFallsBack();

private:
    // The --db of a new store on `backend`: a file named `name` here, or a new database.
    QString storeOn(const QString& backend, const QString& name)
    {
        const QString db = m_stores.freshDatabase(backend);
        return db.isEmpty() ? m_dir.filePath(name) : db;
    }

    QTemporaryDir m_dir;
    StoreRows m_stores;
};

void TestOutboxStore::deliveredRowsOutliveTheirLogsAndAreNotEnqueuedTwice()
{
    QFETCH(QString, backend);
    IndexStoreLab lab(storeOn(backend, "abab.sqlite"));
    const indexer::ForkPoint atCommon{1, hashOf("common")};

    // Branch A: its Transfer's row is rendered from the log, and delivered.
    lab.commit(branch("A", 5));
    const QStringList pendingA = lab.outboxRows();
    QCOMPARE(pendingA.size(), 1);
    const QString keyA = "transfer:2:" + hashOf("A").toHex() + ":0";
    QVERIFY2(pendingA.first().startsWith(keyA + "|{\"type\":\"transfer\""),
             qPrintable(pendingA.first()));
    QVERIFY(pendingA.first().contains("\"value\":\"5\"}|0"));
    // Rendered: no id until delivery touches it, and no stored row.
    QCOMPARE(lab.rows("SELECT count(*) FROM outbox WHERE id IS NULL"), QStringList{"1"});
    QCOMPARE(lab.rows("SELECT count(*) FROM outbox_store"), QStringList{"0"});
    RecordingSink sink;
    const auto queue = store::openOutboxQueue(lab.db, kEnv, kChain);
    outbox::OutboxDispatcher(*queue, sink).deliverRound(2);
    QCOMPARE(sink.sent.size(), 1);
    const QString sentA = QString::fromUtf8(sink.sent.first().payload);

    // Reorg to branch B: A's row stays as sent (its log is gone), a retraction is queued.
    const qint64 reorgA = lab.rollBack(atCommon).reorgId;
    QStringList rows = lab.outboxRows();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0], keyA + '|' + sentA + "|1");
    QVERIFY(rows[1].startsWith("retract:" + keyA + '|'));
    // Counted as the view shows them (the status bar's and the report's figures).
    const store::OutboxTally tally = lab.index->reader().outboxTally(kEnv, kChain);
    QCOMPARE(tally.delivered, 1);
    QCOMPARE(tally.pending, 1);
    lab.commit(branch("B", 6));
    QCOMPARE(lab.outboxRows().size(), 3);

    // And back to A's very block: B's undelivered row goes, A's key is not enqueued again.
    const qint64 reorgB = lab.rollBack(atCommon).reorgId;
    lab.commit(branch("A", 5));
    rows = lab.outboxRows();
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0], keyA + '|' + sentA + "|1");
    QCOMPARE(lab.rows("SELECT count(*) FROM (SELECT event_key FROM outbox GROUP BY event_key "
                      "HAVING count(*) > 1) twice"),
             QStringList{"0"});
    // Each reorg's diff names the outbox rows it dropped or flagged by their keys, rendered
    // from the block hash the diff kept after the log was gone (ReorgDiffContract.h). The
    // second leaves A's row as it was (retracted by the first): it is not in its diff.
    const QString keyB = "transfer:2:" + hashOf("B").toHex() + ":0";
    QCOMPARE(lab.rows("SELECT kind || '|' || event_key FROM reorg_diff_items WHERE kind LIKE "
                      "'outbox%' ORDER BY reorg_id, kind"),
             (QStringList{"outbox_delivered_reorged|" + keyA, "outbox_dropped|" + keyB}));
    QCOMPARE(lab.rows("SELECT delivered_outbox_rows FROM reorg_events WHERE id = ?", {reorgB}),
             QStringList{"0"});
    // The log is back and its transfer counted once in the balances.
    QCOMPARE(lab.rows("SELECT balance FROM token_balances ORDER BY balance"),
             (QStringList{"-5", "5"}));
    // The diff as the app shows it: A's transfer, removed by the first reorg, is stored again
    // above the fork (the same transaction); B's, removed by the second, is not.
    const auto transferAgain = [&](qint64 reorg) {
        const auto diff = engine::readReorgDiff(lab.index->reader(), kEnv, reorg);
        QList<engine::ReorgDiff::Item::Again> again;
        for (const auto& item : diff ? diff->items : QList<engine::ReorgDiff::Item>{})
            if (item.kind == QLatin1String("transfer_removed"))
                again << item.again;
        return again;
    };
    using Again = engine::ReorgDiff::Item::Again;
    QCOMPARE(transferAgain(reorgA), QList<Again>{Again::SameTransaction});
    QCOMPARE(transferAgain(reorgB), QList<Again>{Again::No});
}

void TestOutboxStore::aRowWithoutItsLogIsFailedNotSent()
{
    QFETCH(QString, backend);
    IndexStoreLab lab(storeOn(backend, "orphan.sqlite"));
    lab.commit(branch("A", 5));
    // A row is stored once delivery has tried it; its log then goes by hand (a rendered row
    // would go with its log). In a file, through the views; on PostgreSQL, whose outbox view
    // is read-only, in its tables.
    if (lab.onPostgres()) {
        lab.exec("INSERT INTO outbox_store (environment_id, chain_id, block_number, log_index, "
                 "attempts, last_error) SELECT environment_id, chain_id, block_number, "
                 "log_index, 1, 'timeout' FROM log_store WHERE block_number = 2");
        lab.exec("DELETE FROM log_store WHERE block_number = 2");
    } else {
        lab.exec("UPDATE outbox SET attempts = 1, last_error = 'timeout' WHERE block_number = 2");
        lab.exec("DELETE FROM logs WHERE block_number = 2");
    }
    RecordingSink sink;
    const auto queue = store::openOutboxQueue(lab.db, kEnv, kChain);
    const outbox::RoundResult r = outbox::OutboxDispatcher(*queue, sink).deliverRound(2);
    QCOMPARE(sink.sent.size(), 0);
    QCOMPARE(r.failed, 1);
    const QStringList failed =
        lab.rows("SELECT last_error, CASE WHEN failed_at IS NULL THEN 0 ELSE 1 END FROM outbox "
                 "WHERE block_number = 2");
    QCOMPARE(failed.size(), 1);
    QVERIFY2(failed.first().contains("names a log that is not in the database"),
             qPrintable(failed.first()));
    QVERIFY2(failed.first().endsWith("|1"), qPrintable(failed.first()));
}

void TestOutboxStore::anAddedContractsTransfersBelowTheCursorAreDelivered()
{
    QFETCH(QString, backend);
    IndexStoreLab lab(storeOn(backend, "added.sqlite"));
    lab.commit(branch("A", 5));
    RecordingSink sink;
    const auto queue = store::openOutboxQueue(lab.db, kEnv, kChain);
    outbox::OutboxDispatcher(*queue, sink).deliverRound(2);
    QCOMPARE(sink.sent.size(), 1);
    // Every row below the checkpoint is stored now. An added contract's backfill then stores
    // a Transfer in block 2: its row is rendered there, below where delivery stood.
    const chain::Address added =
        chain::Address::fromBytes(hashOf("added").toByteArray().right(20), "added");
    QVERIFY(lab.index->addSource(added, 1));
    indexer::VerifiedBatch b = branchOf("A", {});
    chain::LogEntry log =
        transferLog(b.blocks.last(), 7, topicOf("carol"), topicOf("dave"), 9, "added-tx");
    log.address = added;
    b.logs << log;
    lab.index->commitSource(b, lab.index->addedSources().first());
    outbox::OutboxDispatcher(*queue, sink).deliverRound(2);
    QCOMPARE(sink.sent.size(), 2);
    QCOMPARE(sink.sent.last().eventKey, "transfer:2:" + hashOf("A").toHex() + ":7");
    QVERIFY(sink.sent.last().id > 0);
    QCOMPARE(queue->pendingAtOrBelow(2), 0);
}

void TestOutboxStore::aBatchIsStoredOnceHoweverItsRowsAreGrouped_data()
{
    // Log and outbox rows go in statements of 64 rows, the rest one by one
    // (BatchCommitter, store/MultiRowInsert.h): counts on each side of a group's edge.
    QTest::addColumn<int>("transfers");
    QTest::newRow("one") << 1;
    QTest::newRow("one short of a group") << 63;
    QTest::newRow("one group") << 64;
    QTest::newRow("one past a group") << 65;
    QTest::newRow("two groups and two") << 130;
}

void TestOutboxStore::aBatchIsStoredOnceHoweverItsRowsAreGrouped()
{
    QFETCH(int, transfers);
    QTemporaryDir dir;
    StoreLab lab(dir.filePath("db.sqlite"));
    QList<int> values;
    int total = 0;
    for (int i = 0; i < transfers; ++i) {
        values << 1 + i % 7;
        total += values.last();
    }
    const indexer::VerifiedBatch whole = branchOf("A", values);
    indexer::VerifiedBatch first = whole; // every other log of block 2 first
    first.logs.clear();
    for (qsizetype i = 0; i < whole.logs.size(); i += 2)
        first.logs << whole.logs[i];
    const indexer::CommitStats a = lab.committer.commit(std::nullopt, first, 1, "test", 1);
    QCOMPARE(a.logs, first.logs.size());
    QCOMPARE(a.outboxRows, first.logs.size());

    // The whole block 2, its stored logs between new ones, and a block 3 of three more
    // Transfers: the stored logs are not projected a second time (each row's own change
    // count decides), the new ones are.
    indexer::VerifiedBatch again = whole;
    again.blocks << header(3, "A3", "A");
    for (int i = 0; i < 3; ++i) {
        again.logs << transferLog(again.blocks.last(), std::uint64_t(i), topicOf("alice"),
                                  topicOf("bob"), 10, "A3-tx" + QByteArray::number(i));
        total += 10;
    }
    const indexer::CommitStats b =
        lab.committer.commit(lab.checkpoints.read(), again, 1, "test", 1);
    const qsizetype added = whole.logs.size() - first.logs.size() + 3;
    QCOMPARE(b.logs, added);
    QCOMPARE(b.outboxRows, added);

    // Every row once, in log order, and each balance the sum of its Transfers.
    QSqlQuery logs = lab.db->run("SELECT block_number, log_index, value FROM transfer_events "
                                 "ORDER BY block_number, log_index");
    QList<int> stored;
    while (logs.next())
        stored << logs.value(2).toInt();
    QCOMPARE(stored, values + QList<int>({10, 10, 10}));
    const QStringList outbox = outboxRows(*lab.db);
    QCOMPARE(outbox.size(), transfers + 3);
    QVERIFY(outbox.first().startsWith("transfer:2:"));
    QVERIFY(outbox.last().startsWith("transfer:3:"));
    QCOMPARE(QSet<QString>(outbox.cbegin(), outbox.cend()).size(), outbox.size());
    QSqlQuery bob = lab.db->run(
        QStringLiteral("SELECT balance, transfer_sides FROM token_balances WHERE holder = '0x%1'")
            .arg(QString::fromLatin1(topicOf("bob").toByteArray().right(20).toHex())));
    QVERIFY(bob.next());
    QCOMPARE(bob.value(0).toString(), QString::number(total));
    QCOMPARE(bob.value(1).toInt(), transfers + 3);
}

void TestOutboxStore::aRollbackRecordsEachBalanceChangeOnce_data()
{
    // In a file the balance diff rows go in statements of 64 rows, the rest one by one
    // (ReorgRollback::recordBalanceChanges): changes on each side of a group's edge. Each
    // planned there on the rollback's own connection and on a second one
    // (BalanceRevertPlan.h); PostgreSQL plans on its own.
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("holders");
    QTest::addColumn<bool>("aside");
    for (const QString& backend : StoreRows::backends())
        for (const bool aside : {false, true}) {
            if (aside && backend == "postgresql")
                continue;
            const QByteArray b = backend.toLatin1();
            const char* where = aside ? ", planned aside" : "";
            QTest::addRow("%s, one%s", b.constData(), where) << backend << 1 << aside;
            QTest::addRow("%s, one group with the sender%s", b.constData(), where)
                << backend << 63 << aside;
            QTest::addRow("%s, one past a group%s", b.constData(), where) << backend << 64 << aside;
            QTest::addRow("%s, two groups and three%s", b.constData(), where)
                << backend << 130 << aside;
        }
}

void TestOutboxStore::aRollbackRecordsEachBalanceChangeOnce()
{
    QFETCH(QString, backend);
    QFETCH(int, holders);
    QFETCH(bool, aside);
    QTemporaryDir dir;
    IndexStoreLab lab(
        storeOn(backend, QStringLiteral("balances-%1-%2.sqlite").arg(holders).arg(aside)));
    if (!lab.onPostgres())
        dynamic_cast<store::SqliteIndexStore&>(*lab.index)
            .setPlanAsideFrom(aside ? 0 : std::numeric_limits<qint64>::max());
    // Block 2 mints to alice what she then pays, holder by holder: all of it is reorged away.
    indexer::VerifiedBatch b = branchOf("A", {});
    int minted = 0;
    QHash<QString, QString> expected; // holder -> balance before the rollback
    for (int i = 0; i < holders; ++i) {
        const chain::Hash32 holder = topicOf("holder" + QByteArray::number(i));
        b.logs << transferLog(b.blocks.last(), std::uint64_t(i + 1), topicOf("alice"), holder,
                              1 + i % 7, "A-tx" + QByteArray::number(i));
        minted += 1 + i % 7;
        expected.insert("0x" + holder.toByteArray().right(20).toHex(), QString::number(1 + i % 7));
    }
    b.logs.prepend(
        transferLog(b.blocks.last(), 0, chain::Hash32(), topicOf("alice"), minted, "A-mint"));
    expected.insert("0x" + topicOf("alice").toByteArray().right(20).toHex(), QStringLiteral("0"));
    lab.commit(b);

    const indexer::RollbackResult r = lab.rollBack({1, hashOf("common")});
    QCOMPARE(r.balancesPlannedAside, aside);
    QCOMPARE(r.planAsideFallback, QString());
    // Each holder's row is gone, so each one is recorded once: before as it was, after none.
    QHash<QString, QString> recorded;
    for (const QString& row : lab.rows("SELECT holder, before_value, after_value FROM "
                                       "reorg_diff_items WHERE kind = 'balance_changed'")) {
        const QStringList v = row.split('|');
        QVERIFY2(!recorded.contains(v[0]), qPrintable(v[0]));
        QCOMPARE(v[2], QStringLiteral("NULL"));
        recorded.insert(v[0], v[1]);
    }
    QCOMPARE(recorded.size(), holders + 1);
    QCOMPARE(recorded, expected);
    QCOMPARE(lab.rows("SELECT count(*) FROM token_balances"), QStringList{"0"});
}

void TestOutboxStore::aRollbackRecordsEachOutboxRowOnce_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<bool>("oneDelivered");
    QTest::addColumn<bool>("oneLogDeletedByHand");
    QTest::addColumn<bool>("oneTried");
    QTest::addColumn<bool>("oneRowNamingNoLog");
    QTest::addColumn<bool>("onePendingRetraction");
    for (const QString& backend : StoreRows::backends()) {
        const QByteArray b = backend.toLatin1();
        const auto row = [&](const char* name) -> QTestData& {
            return QTest::addRow("%s, %s", b.constData(), name) << backend;
        };
        // Every row is rendered from its Transfer's log: each is recorded with its Transfer's
        // diff row, and nothing is stored to look up.
        row("all pending") << false << false << false << false << false;
        // A stored row above the fork takes the join: delivered, or tried and still pending
        // (sent without an answer: retracted like a delivered one).
        row("one delivered") << true << false << false << false << false;
        row("one tried") << false << false << true << false << false;
        // A stored row whose log is gone cannot be recorded with a Transfer: it is copied on
        // its own (ReorgRollback step 1). A rendered row goes with its log.
        row("a stored row whose log is gone") << false << true << true << false << false;
        row("a rendered row's log gone") << false << true << false << false << false;
        row("delivered, and a log gone") << true << true << false << false << false;
        // A pending row with its own key beside the Transfers' rows.
        row("a row naming no log") << false << false << false << true << false;
        // A retraction not yet sent is not undone: it moves down to the fork.
        row("a pending retraction") << false << false << false << false << true;
        row("all of them") << true << true << true << true << true;
    }
}

void TestOutboxStore::aRollbackRecordsEachOutboxRowOnce()
{
    QFETCH(QString, backend);
    QFETCH(bool, oneDelivered);
    QFETCH(bool, oneLogDeletedByHand);
    QFETCH(bool, oneTried);
    QFETCH(bool, oneRowNamingNoLog);
    QFETCH(bool, onePendingRetraction);
    IndexStoreLab lab(storeOn(backend, QStringLiteral("fold-%1-%2-%3-%4-%5.sqlite")
                                           .arg(int(oneDelivered))
                                           .arg(int(oneLogDeletedByHand))
                                           .arg(int(oneTried))
                                           .arg(int(oneRowNamingNoLog))
                                           .arg(int(onePendingRetraction))));
    lab.commit(branchOf("A", {3, 4, 5}));
    // Both stores store a row only once delivery touches it (they render the others from
    // their logs).
    const auto storedRows = [&lab] {
        return lab.rows("SELECT count(*) FROM outbox_store").value(0).toInt();
    };
    const bool file = !lab.onPostgres();
    QCOMPARE(storedRows(), 0);
    // By hand, as a user would: in a file through the views (updating a rendered row stores
    // it); on PostgreSQL, whose outbox view is read-only, in its tables (a row delivery
    // touched is stored).
    if (oneDelivered)
        lab.exec(file ? "UPDATE outbox SET delivered_at = '2026-12-02T00:00:00.000Z' WHERE "
                        "event_key LIKE '%:1'"
                      : "INSERT INTO outbox_store (environment_id, chain_id, block_number, "
                        "log_index, delivered_at, attempts) SELECT environment_id, chain_id, "
                        "block_number, log_index, '2026-12-02T00:00:00.000Z'::timestamptz, 1 FROM "
                        "log_store "
                        "WHERE log_index = 1");
    if (oneTried)
        lab.exec(file ? "UPDATE outbox SET attempts = 1, last_error = 'timeout' WHERE event_key "
                        "LIKE '%:2'"
                      : "INSERT INTO outbox_store (environment_id, chain_id, block_number, "
                        "log_index, attempts, last_error) SELECT environment_id, chain_id, "
                        "block_number, log_index, 1, 'timeout' FROM log_store WHERE log_index = "
                        "2");
    if (oneLogDeletedByHand)
        lab.exec(file ? "DELETE FROM logs WHERE log_index = 2"
                      : "DELETE FROM log_store WHERE log_index = 2");
    // A pending row with its own key, in block 2.
    const auto addOwnKeyRow = [&](const QString& key) {
        lab.exec(QStringLiteral("INSERT INTO %1 (environment_id, chain_id, block_number, "
                                "event_key, payload) SELECT environment_id, chain_id, "
                                "block_number, '%2', '{}' FROM blocks WHERE block_number = 2")
                     .arg(file ? "outbox" : "outbox_store", key));
    };
    if (oneRowNamingNoLog)
        addOwnKeyRow("manual:1");
    if (onePendingRetraction)
        addOwnKeyRow("retract:transfer:2:0x00:0");
    QCOMPARE(storedRows(), int(oneDelivered) + int(oneTried) + int(oneRowNamingNoLog) +
                               int(onePendingRetraction));
    // What the rollback must record: each outbox row above the fork as the outbox view shows
    // it, once, but the pending retraction. The tried row's log is there unless deleted.
    const bool triedRowRetracted = oneTried && !oneLogDeletedByHand;
    QStringList expected =
        lab.rows("SELECT CASE WHEN delivered_at IS NOT NULL THEN 'outbox_delivered_reorged' "
                 "WHEN attempts > 0 AND event_key IS NOT NULL THEN "
                 "'outbox_unconfirmed_retracted' ELSE 'outbox_dropped' END || '|' || "
                 "coalesce(event_key, '(none)') FROM outbox WHERE block_number > 1 AND "
                 "coalesce(event_key, '') NOT LIKE 'retract:%'");
    // A rendered row goes with its log; a stored one stays.
    const bool renderedRowGone = oneLogDeletedByHand && !oneTried;
    const int rows = 3 - int(renderedRowGone) + int(oneRowNamingNoLog);
    QCOMPARE(expected.size(), rows);
    expected.sort();
    // Retracted: the delivered row, and the tried one if it still renders its key.
    QStringList retracted = lab.rows("SELECT 'retract:' || event_key FROM outbox WHERE "
                                     "block_number > 1 AND (delivered_at IS NOT NULL OR "
                                     "attempts > 0) AND event_key LIKE 'transfer:%'");
    if (onePendingRetraction)
        retracted << "retract:transfer:2:0x00:0";
    retracted.sort();
    QCOMPARE(retracted.size(),
             int(oneDelivered) + int(triedRowRetracted) + int(onePendingRetraction));

    const indexer::RollbackResult r = lab.rollBack({1, hashOf("common")});
    QCOMPARE(r.outboxDropped, rows - int(oneDelivered) - int(triedRowRetracted));
    QCOMPARE(r.deliveredAffected, oneDelivered ? 1 : 0);
    QCOMPARE(r.unconfirmedRetracted, triedRowRetracted ? 1 : 0);
    // Each retraction waits at the fork's height; none is dropped.
    QCOMPARE(lab.rows("SELECT event_key FROM outbox WHERE event_key LIKE 'retract:%' AND "
                      "block_number = 1 AND delivered_at IS NULL ORDER BY event_key"),
             retracted);
    QCOMPARE(lab.rows("SELECT count(*) FROM outbox WHERE block_number > 1 AND delivered_at IS "
                      "NULL"),
             QStringList{"0"});

    QStringList recorded = lab.rows("SELECT kind || '|' || coalesce(event_key, '(none)') FROM "
                                    "reorg_diff_items WHERE kind LIKE 'outbox%'");
    recorded.sort();
    QCOMPARE(recorded, expected);
    // A Transfer's own diff row has no event key, as before the outbox rows were folded in.
    QCOMPARE(lab.rows("SELECT count(*), count(event_key) FROM reorg_diff_items WHERE kind = "
                      "'transfer_removed'"),
             QStringList{QStringLiteral("%1|0").arg(oneLogDeletedByHand ? 2 : 3)});
    // In the order the rollback recorded them (the report's order): transfers, outbox rows,
    // balances.
    QStringList kinds;
    for (const QString& kind :
         lab.rows(QStringLiteral("SELECT kind FROM (%1) x WHERE reorg_id = ? AND environment_id "
                                 "= ? ORDER BY phase, id")
                      .arg(lab.index->reader().reorgDiffRecordedSql()),
                  {r.reorgId, kEnv}))
        if (kinds.isEmpty() || kinds.last() != kind.section('_', 0, 0))
            kinds << kind.section('_', 0, 0);
    QCOMPARE(kinds, (QStringList{"transfer", "outbox", "balance"}));
}

// The balances planned on a second connection, beside the rollback's writes, leave exactly
// what the plan made on the rollback's own connection leaves: balances rewritten, rows
// dropped, the diff, the outbox.
void TestOutboxStore::bothBalancePlansLeaveTheSameFile()
{
    QStringList dumps[2];
    for (const bool aside : {false, true}) {
        QTemporaryDir dir;
        StoreLab lab(dir.filePath("db.sqlite"));
        planAside(lab.rollback, aside);
        lab.committer.commit(std::nullopt, holdersInTwoBlocks(), 1, "test", 1);
        const QStringList before = contractDump(*lab.db);
        const indexer::RollbackResult r = lab.rollback.rollback(
            *lab.checkpoints.read(), {1, hashOf("common")}, indexer::reorg_reason::kParentMismatch);
        QCOMPARE(r.balancesPlannedAside, aside);
        QCOMPARE(r.transfersRemoved, 11);
        // alice, five holders paid again, three new ones, holders 6 and 7, bob; holder 8's
        // self-transfer changes nothing.
        QCOMPARE(r.balancesChanged, 12);
        QVERIFY(contractDump(*lab.db) != before);
        dumps[aside] = contractDump(*lab.db);
    }
    QCOMPARE(dumps[true], dumps[false]);
    // And the balances are those block 1 alone leaves.
    QTemporaryDir dir;
    StoreLab blockOne(dir.filePath("db.sqlite"));
    indexer::VerifiedBatch b = holdersInTwoBlocks();
    b.blocks.removeLast();
    b.logs.removeIf([](const chain::LogEntry& log) { return log.blockNumber == 2; });
    blockOne.committer.commit(std::nullopt, b, 1, "test", 1);
    const QStringList expected = balanceRows(*blockOne.db);
    QCOMPARE(expected.size(), 11);
    QCOMPARE(dumps[false].mid(0, expected.size()), expected);
}

// A caller's open transaction (a repair rebuilds balances, then rolls back in it) is not
// visible to a second connection: its rollback plans on its own connection, and counts the
// caller's uncommitted balance.
void TestOutboxStore::aRollbackInACallersTransactionPlansOnItsConnection()
{
    QTemporaryDir dir;
    StoreLab lab(dir.filePath("db.sqlite"));
    planAside(lab.rollback, true);
    lab.committer.commit(std::nullopt, holdersInTwoBlocks(), 1, "test", 1);
    const indexer::HolderKey alice{
        chain::Address::fromBytes(hashOf("token").toByteArray().right(20), "token"),
        chain::Address::fromBytes(topicOf("alice").toByteArray().right(20), "alice")};
    QCOMPARE(lab.balances.current(alice), std::optional<QString>("834"));

    store::WriteTransaction tx(*lab.db);
    lab.balances.apply(indexer::HolderDeltas{{alice, {chain::SignedAmount(100), 1, 1}}});
    const indexer::RollbackResult r = lab.rollback.rollback(
        *lab.checkpoints.read(), {1, hashOf("common")}, indexer::reorg_reason::kParentMismatch);
    QVERIFY(!r.balancesPlannedAside);
    QCOMPARE(r.planAsideFallback, QString());
    // 934 (834 and the caller's 100), given back what block 2 took from her (21): 955.
    QCOMPARE(lab.balances.current(alice), std::optional<QString>("955"));
    tx.commit();
    QCOMPARE(lab.balances.current(alice), std::optional<QString>("955"));
}

// A second connection that cannot open the file (here: it was renamed under the rollback)
// says why, and the rollback plans on its own connection instead: the same result.
void TestOutboxStore::aPlanAsideThatCannotOpenTheFileFallsBack()
{
    QTemporaryDir dir;
    QStringList expected;
    {
        StoreLab lab(dir.filePath("plain.sqlite"));
        planAside(lab.rollback, false);
        lab.committer.commit(std::nullopt, holdersInTwoBlocks(), 1, "test", 1);
        lab.rollback.rollback(*lab.checkpoints.read(), {1, hashOf("common")},
                              indexer::reorg_reason::kParentMismatch);
        expected = contractDump(*lab.db);
    }
    const QString path = dir.filePath("db.sqlite");
    StoreLab lab(path);
    planAside(lab.rollback, true);
    lab.committer.commit(std::nullopt, holdersInTwoBlocks(), 1, "test", 1);
    // A rename is no open() of the file: this connection's locks and descriptors stay.
    QVERIFY(QFile::rename(path, path + ".moved"));
    const indexer::RollbackResult r = lab.rollback.rollback(
        *lab.checkpoints.read(), {1, hashOf("common")}, indexer::reorg_reason::kParentMismatch);
    QVERIFY(QFile::rename(path + ".moved", path));
    QVERIFY(!r.balancesPlannedAside);
    QVERIFY2(r.planAsideFallback.contains(path), qPrintable(r.planAsideFallback));
    QCOMPARE(contractDump(*lab.db), expected);
}

QTEST_GUILESS_MAIN(TestOutboxStore)
#include "tst_outboxstore.moc"
