// Schema 8 (store/PendingOutboxContract.h): a pending Transfer's outbox row is rendered from
// its log, not stored. The `outbox` view still shows one row per Transfer; delivery stores
// each row it touches before it sends it (so the envelope has an id) and moves the outbox
// cursor past them; a batch committed below the cursor brings it down, so nothing committed
// there is left behind; a rendered row cannot be deleted apart from its Transfer.
#include "EnvironmentDump.h"
#include "StoreLab.h"
#include "indexer/ReorgReason.h"
#include "outbox/OutboxDispatcher.h"
#include "store/PendingOutboxContract.h"
#include "store/SqliteOutboxQueue.h"
#include "store/StoreError.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;
using namespace forkscope::test;

class TestRenderedOutbox : public QObject
{
    Q_OBJECT

private slots:
    void aPendingTransferIsRenderedNotStored();
    void deliveryStoresWhatItSendsAndMovesTheCursor_data();
    void deliveryStoresWhatItSendsAndMovesTheCursor();
    void aBatchBelowTheCursorBringsItDown();
    void aRenderedRowIsUpdatedNotDeleted();

private:
    QTemporaryDir m_dir;
};

void TestRenderedOutbox::aPendingTransferIsRenderedNotStored()
{
    StoreLab lab(m_dir.filePath("rendered.sqlite"));
    store::Database& db = *lab.db;
    const indexer::CommitStats stats =
        lab.committer.commit(std::nullopt, branchOf("A", {3, 4, 5}), 1, "test", 1);
    QCOMPARE(stats.outboxRows, 3);
    QCOMPARE(queryRows(db, "SELECT count(*) FROM outbox_store"), QStringList{"0"});
    // The view: one pending row per Transfer, no id yet, its key and payload from the log.
    const QString hashA = hashOf("A").toHex();
    QCOMPARE(queryRows(db, "SELECT coalesce(id, 'null'), block_number, event_key, delivered_at "
                           "IS NULL, attempts FROM outbox ORDER BY event_key"),
             (QStringList{"null|2|transfer:2:" + hashA + ":0|1|0",
                          "null|2|transfer:2:" + hashA + ":1|1|0",
                          "null|2|transfer:2:" + hashA + ":2|1|0"}));
    QCOMPARE(queryRows(db, "SELECT payload FROM outbox WHERE event_key LIKE '%:2'").first(),
             "{\"type\":\"transfer\",\"chainId\":31337,\"blockNumber\":2,\"blockHash\":\"" + hashA +
                 "\",\"logIndex\":2,\"txHash\":\"" + hashOf("A-tx2").toHex() +
                 "\",\"contract\":\"0x" + hashOf("token").toHex().right(40) + "\",\"from\":\"0x" +
                 topicOf("alice").toHex().right(40) + "\",\"to\":\"0x" +
                 topicOf("bob").toHex().right(40) + "\",\"value\":\"5\"}");
    // What the status bar, the report and --exit-when-synced count.
    const outbox::OutboxCounts counts = outbox::countRows(db, kEnv, kChain);
    QCOMPARE(counts.pending, 3);
    QCOMPARE(counts.delivered, 0);
    QCOMPARE(outbox::pendingAtOrBelow(db, kEnv, kChain, 2), 3);
    QCOMPARE(outbox::pendingAtOrBelow(db, kEnv, kChain, 1), 0);
}

void TestRenderedOutbox::deliveryStoresWhatItSendsAndMovesTheCursor_data()
{
    QTest::addColumn<int>("limit");
    QTest::newRow("all in one round") << 10;
    QTest::newRow("two per round") << 2;
    QTest::newRow("one per round") << 1;
}

void TestRenderedOutbox::deliveryStoresWhatItSendsAndMovesTheCursor()
{
    QFETCH(int, limit);
    StoreLab lab(m_dir.filePath(QStringLiteral("deliver-%1.sqlite").arg(limit)));
    store::Database& db = *lab.db;
    // Blocks 1 and 2 ("common" and "A"), then 3 and 4 on top.
    lab.committer.commit(std::nullopt, branchOf("A", {3, 4, 5}), 1, "test", 1);
    indexer::VerifiedBatch more;
    more.blocks << header(3, "A3", "A") << header(4, "A4", "A3");
    more.logs << transferLog(more.blocks[0], 0, topicOf("bob"), topicOf("carol"), 1, "t3")
              << transferLog(more.blocks[1], 0, topicOf("carol"), topicOf("dave"), 1, "t4");
    lab.committer.commit(lab.checkpoints.read(), more, 3, "test", 1);
    QCOMPARE(store::outboxCursor(db, kEnv, kChain), 0);

    RecordingSink sink;
    store::SqliteOutboxQueue queue(db, kEnv, kChain);
    outbox::OutboxDispatcher dispatcher(queue, sink);
    // Up to block 3: rows of block 4 stay rendered.
    for (int round = 0; round < 10 && sink.sent.size() < 4; ++round)
        dispatcher.deliverRound(3, limit);
    QCOMPARE(sink.sent.size(), 4);
    QStringList sentKeys;
    QSet<qint64> ids;
    for (const outbox::OutboxRow& row : sink.sent) {
        QVERIFY2(row.id > 0, qPrintable(row.eventKey)); // stored before it was sent
        ids.insert(row.id);
        sentKeys << row.eventKey;
    }
    QCOMPARE(ids.size(), 4);
    const QString hashA = hashOf("A").toHex();
    QCOMPARE(sentKeys, (QStringList{"transfer:2:" + hashA + ":0", "transfer:2:" + hashA + ":1",
                                    "transfer:2:" + hashA + ":2",
                                    "transfer:3:" + hashOf("A3").toHex() + ":0"}));
    // The view reads them delivered under the ids that were sent; block 4's is still rendered.
    QCOMPARE(queryRows(
                 db, "SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL AND id IN "
                     "(" +
                         [&] {
                             QStringList l;
                             for (qint64 id : ids)
                                 l << QString::number(id);
                             return l.join(',');
                         }() +
                         ")"),
             QStringList{"4"});
    QCOMPARE(queryRows(db, "SELECT block_number, id IS NULL FROM outbox WHERE delivered_at IS "
                           "NULL"),
             QStringList{"4|1"});
    QCOMPARE(queryRows(db, "SELECT count(*) FROM outbox_store"), QStringList{"4"});
    // The cursor is at the first rendered row; nothing is sent twice.
    QCOMPARE(store::outboxCursor(db, kEnv, kChain), 4);
    dispatcher.deliverRound(3, limit);
    QCOMPARE(sink.sent.size(), 4);
    dispatcher.deliverRound(4, limit);
    QCOMPARE(sink.sent.size(), 5);
    QCOMPARE(store::outboxCursor(db, kEnv, kChain), 5); // past the last log
    QCOMPARE(outbox::countRows(db, kEnv, kChain).pending, 0);
    QCOMPARE(outbox::countRows(db, kEnv, kChain).delivered, 5);
}

// A rollback below the cursor and the blocks indexed again there (what `repair` does): the
// new Transfers are committed below the cursor, which comes down with them, so the dispatcher
// finds and sends them. Without that they would stay pending and never go.
void TestRenderedOutbox::aBatchBelowTheCursorBringsItDown()
{
    StoreLab lab(m_dir.filePath("below.sqlite"));
    store::Database& db = *lab.db;
    lab.committer.commit(std::nullopt, branchOf("A", {3, 4}), 1, "test", 1);
    RecordingSink sink;
    store::SqliteOutboxQueue queue(db, kEnv, kChain);
    outbox::OutboxDispatcher dispatcher(queue, sink);
    dispatcher.deliverRound(2);
    QCOMPARE(sink.sent.size(), 2);
    QCOMPARE(store::outboxCursor(db, kEnv, kChain), 3);

    lab.rollback.rollback(*lab.checkpoints.read(), {1, hashOf("common")},
                          indexer::reorg_reason::kParentMismatch);
    QCOMPARE(store::outboxCursor(db, kEnv, kChain), 3); // a rollback stores nothing below it
    indexer::VerifiedBatch b = branchOf("B", {7, 8, 9});
    b.blocks.removeFirst();
    lab.committer.commit(lab.checkpoints.read(), b, 2, "test", 1);
    QCOMPARE(store::outboxCursor(db, kEnv, kChain), 2);
    QCOMPARE(outbox::pendingAtOrBelow(db, kEnv, kChain, 2), 3 + 2); // B's, and 2 retractions

    sink.sent.clear();
    dispatcher.deliverRound(2);
    QStringList sentKeys;
    for (const outbox::OutboxRow& row : sink.sent)
        sentKeys << row.eventKey.section(':', 0, 1);
    // The retractions were queued at the fork height, block 1: they go first.
    QCOMPARE(sentKeys, (QStringList{"retract:transfer", "retract:transfer", "transfer:2",
                                    "transfer:2", "transfer:2"}));
    QCOMPARE(outbox::pendingAtOrBelow(db, kEnv, kChain, 2), 0);
}

void TestRenderedOutbox::aRenderedRowIsUpdatedNotDeleted()
{
    StoreLab lab(m_dir.filePath("edit.sqlite"));
    store::Database& db = *lab.db;
    lab.committer.commit(std::nullopt, branchOf("A", {3, 4}), 1, "test", 1);
    // It is its Transfer: deleting it alone is refused, with what to do instead.
    try {
        db.run("DELETE FROM outbox WHERE event_key LIKE '%:0'");
        QFAIL("a rendered row was deleted");
    } catch (const store::StoreError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains("delete the Transfer from transfer_events"),
                 e.what());
    }
    QCOMPARE(queryRows(db, "SELECT count(*) FROM outbox"), QStringList{"2"});
    // Requeue bookkeeping through the view stores the row, naming its log.
    db.run("UPDATE outbox SET attempts = 2, last_error = 'timeout' WHERE event_key LIKE '%:1'");
    QCOMPARE(queryRows(db, "SELECT block_number, log_index, event_key IS NULL, attempts, "
                           "last_error FROM outbox_store"),
             QStringList{"2|1|1|2|timeout"});
    QCOMPARE(queryRows(db, "SELECT count(*), count(id) FROM outbox"), QStringList{"2|1"});
    // Deleting the Transfer takes its rendered row with it.
    db.run("DELETE FROM logs WHERE log_index = 0");
    QCOMPARE(queryRows(db, "SELECT count(*) FROM outbox"), QStringList{"1"});
}

QTEST_GUILESS_MAIN(TestRenderedOutbox)
#include "tst_renderedoutbox.moc"
