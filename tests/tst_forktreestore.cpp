// The fork tree's store side on both stores, the backend a data row: every rollback keeps the
// headers of the blocks it removes (orphaned_blocks) with its reorg id, reason and fork
// point, a repair too, within a retention pruned a bounded number of rollbacks at a time; a
// node's head is stored when its hash changes; the readers fill a window by the spine rule
// and within their bounds, and a block's rows are its stored rows (canonical) or the rows
// its rollback removed as the reorg diff shows them (orphaned), also through the read
// service. Synthetic chains through indexer::IndexStore (tests/support/IndexStoreLab.h); one
// test on anvil: `forkscope index` across a real reorg keeps the branch, verify stays
// clean, and the report counts the orphaned blocks.
#include "IndexStoreLab.h"
#include "IndexerLab.h"
#include "StoreLab.h"
#include "StoreRows.h"
#include "engine/IndexingService.h"
#include "engine/ReadService.h"
#include "engine/ReorgDiffReader.h"
#include "forktree/ForkBlockReader.h"
#include "forktree/ForkTreeReader.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/OutboxQueue.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;
using namespace forkscope::test;
using forktree::BranchReason;

namespace {

QByteArray nameOf(const QByteArray& branch, std::uint64_t number)
{
    return branch + QByteArray::number(qulonglong(number));
}

// Blocks `from`..`to` of `branch` ("a7" is block 7 of branch a), the first a child of
// `parent`; with `transfers`, one Transfer of `from`'s number in each, in a transaction of
// its own block.
indexer::VerifiedBatch run(const QByteArray& branch, std::uint64_t from, std::uint64_t to,
                           const QByteArray& parent, bool transfers = true)
{
    indexer::VerifiedBatch b;
    QByteArray previous = parent;
    for (std::uint64_t n = from; n <= to; ++n) {
        b.blocks << header(n, nameOf(branch, n), previous);
        if (transfers)
            b.logs << transferLog(b.blocks.last(), 0, topicOf("alice"), topicOf("bob"), int(n),
                                  "tx-" + nameOf(branch, n));
        previous = nameOf(branch, n);
    }
    return b;
}

indexer::ForkPoint forkAt(std::uint64_t number, const QByteArray& name)
{
    return {number, hashOf(name)};
}

// "reorg id|fork point|fork hash|reason|first..last" of each branch of `w`, oldest first.
QStringList branchesOf(const forktree::ForkTreeWindow& w)
{
    QStringList out;
    for (auto it = w.branches.crbegin(); it != w.branches.crend(); ++it) {
        QStringList blocks;
        for (const forktree::TreeBlock& b : it->blocks)
            blocks << QString::number(b.number) + ':' + b.hash.toHex().left(10);
        out << QStringLiteral("%1|%2|%3|%4|%5")
                   .arg(it->reorgId)
                   .arg(it->forkPoint)
                   .arg(it->forkHash.toHex().left(10))
                   .arg(int(it->reason))
                   .arg(blocks.join(','));
    }
    return out;
}

QString branchLine(qint64 reorg, std::uint64_t fork, const QByteArray& forkName, BranchReason r,
                   const QList<QByteArray>& blocks)
{
    QStringList shown;
    for (const QByteArray& name : blocks)
        shown << QString::fromLatin1(name.mid(1)) + ':' + hashOf(name).toHex().left(10);
    return QStringLiteral("%1|%2|%3|%4|%5")
        .arg(reorg)
        .arg(fork)
        .arg(hashOf(forkName).toHex().left(10))
        .arg(int(r))
        .arg(shown.join(','));
}

QList<std::uint64_t> numbersOf(const QVector<forktree::TreeBlock>& blocks)
{
    QList<std::uint64_t> out;
    for (const forktree::TreeBlock& b : blocks)
        out << b.number;
    return out;
}

// A block's rows as text, one line each.
QStringList rowsOf(const forktree::ForkBlockRows& r)
{
    QStringList out;
    for (const forktree::ForkBlockRow& row : r.rows)
        out << QStringLiteral("%1|%2|%3|%4|%5|%6|%7|%8|%9")
                   .arg(int(row.kind))
                   .arg(row.txHash.toHex())
                   .arg(row.logIndex)
                   .arg(row.contract, row.from, row.to, row.value)
                   .arg(int(row.cameBack))
                   .arg(row.eventKey);
    return out;
}

} // namespace

class TestForkTreeStore : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { m_stores.startCluster(); }
    void rollbacksKeepTheirBranches_data() { StoreRows::backendRows(); }
    void rollbacksKeepTheirBranches();
    void retentionPrunesTheOldestBranchesBoundedly_data() { StoreRows::backendRows(); }
    void retentionPrunesTheOldestBranchesBoundedly();
    void nodeHeadsAreStoredWhenTheyChange_data() { StoreRows::backendRows(); }
    void nodeHeadsAreStoredWhenTheyChange();
    void aWideWindowHoldsTheSpineNearWhatHappened_data() { StoreRows::backendRows(); }
    void aWideWindowHoldsTheSpineNearWhatHappened();
    void blockRowsAreTheStoredOrTheRemovedRows_data() { StoreRows::backendRows(); }
    void blockRowsAreTheStoredOrTheRemovedRows();
    void aRealReorgKeepsItsBranchAndVerifyStaysClean_data() { StoreRows::backendRows(); }
    void aRealReorgKeepsItsBranchAndVerifyStaysClean();

private:
    QString storeOn(const QString& backend, const QString& name)
    {
        const QString db = m_stores.freshDatabase(backend);
        return db.isEmpty() ? m_dir.filePath(name) : db;
    }
    QTemporaryDir m_dir;
    StoreRows m_stores;
};

// Rollbacks of several depths and reasons, a branch forking off a branch re-indexed since,
// and a repair: each keeps exactly the blocks it removed, with its fork point and hash.
void TestForkTreeStore::rollbacksKeepTheirBranches()
{
    QFETCH(QString, backend);
    IndexStoreLab lab(storeOn(backend, QStringLiteral("branches.sqlite")));
    lab.commit(run("a", 1, 10, "genesis"));
    const auto cp = [&] { return *lab.index->checkpoint(); };
    // Depth 4 (a7..a10), then b7..b10 and depth 2 (b9, b10) off b8.
    const qint64 r1 =
        lab.index->rollBack(cp(), forkAt(6, "a6"), indexer::reorg_reason::kHashMismatch).reorgId;
    lab.commit(run("b", 7, 10, "a6"));
    const qint64 r2 =
        lab.index->rollBack(cp(), forkAt(8, "b8"), indexer::reorg_reason::kParentMismatch).reorgId;
    lab.commit(run("c", 9, 10, "b8"));
    // Depth 4 off b7: b8, the block r2's branch forks off, is now on r3's branch.
    const qint64 r3 =
        lab.index->rollBack(cp(), forkAt(7, "b7"), indexer::reorg_reason::kAbsence).reorgId;
    lab.commit(run("d", 8, 12, "b7"));
    // A repair from block 11: d11, d12 go, reason "repair".
    const indexer::RepairOutcome repaired = lab.index->repair(cp(), forkAt(10, "d10"), 11);
    const qint64 r4 = repaired.rollback.reorgId;
    lab.commit(run("e", 11, 11, "d10"));

    const forktree::ForkTreeWindow w =
        forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{1, 20});
    QCOMPARE(
        branchesOf(w),
        (QStringList{branchLine(r1, 6, "a6", BranchReason::HashMismatch, {"a7", "a8", "a9", "a10"}),
                     branchLine(r2, 8, "b8", BranchReason::ParentMismatch, {"b9", "b10"}),
                     branchLine(r3, 7, "b7", BranchReason::Absence, {"b8", "c9", "c10"}),
                     branchLine(r4, 10, "d10", BranchReason::Repair, {"d11", "d12"})}));
    // Newest first: r2 forks off a block of r3's branch, not of the spine.
    const forktree::OrphanBranch& second = w.branches[2];
    const forktree::OrphanBranch& third = w.branches[1];
    QCOMPARE(second.reorgId, r2);
    QCOMPARE(third.blocks.first().hash, hashOf("b8"));
    QCOMPARE(second.forkHash, third.blocks.first().hash);
    // Each block's parent hash is kept, and the time of its rollback.
    QCOMPARE(third.blocks[1].parentHash, hashOf("b8"));
    QVERIFY(w.branches[0].rolledBackAt.isValid());
    QCOMPARE(w.reorgCount, 4);
    QVERIFY(!w.truncated);
    // The spine: a1..a6, b7, d8..d10, e11; the checkpoint and the first block.
    QCOMPARE(numbersOf(w.canonical), (QList<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}));
    QCOMPARE(w.canonical[6].hash, hashOf("b7"));
    QCOMPARE(w.canonical[10].hash, hashOf("e11"));
    QCOMPARE(w.checkpoint, 11u);
    QCOMPARE(w.firstBlock, 1u);
    // The view serves them as 0x text, and no canonical read sees them.
    QCOMPARE(lab.rows(QStringLiteral("SELECT block_hash, parent_hash FROM orphaned_blocks WHERE "
                                     "reorg_id = ? AND block_number = 9"),
                      {r2}),
             QStringList{hashOf("b9").toHex() + '|' + hashOf("b8").toHex()});
    QCOMPARE(lab.rows(QStringLiteral("SELECT count(*) FROM blocks")), QStringList{"11"});
    QCOMPARE(lab.rows(QStringLiteral("SELECT count(*) FROM orphaned_blocks")), QStringList{"11"});
}

// The branches of the latest N rollbacks stay; a lowered retention is reached a bounded
// number of rollbacks at a time; 0 keeps none.
void TestForkTreeStore::retentionPrunesTheOldestBranchesBoundedly()
{
    QFETCH(QString, backend);
    IndexStoreLab lab(storeOn(backend, QStringLiteral("retention.sqlite")));
    lab.commit(run("a", 1, 3, "genesis", false));
    QList<qint64> reorgs;
    // 20 rollbacks of block 3, each branch named by its round.
    for (int i = 0; i < 20; ++i) {
        reorgs << lab.index
                      ->rollBack(*lab.index->checkpoint(), forkAt(2, "a2"),
                                 indexer::reorg_reason::kHashMismatch)
                      .reorgId;
        lab.commit(run("r" + QByteArray::number(i) + "-", 3, 3, "a2", false));
    }
    const auto kept = [&] {
        return lab.rows(QStringLiteral("SELECT DISTINCT reorg_id FROM orphaned_blocks ORDER BY "
                                       "reorg_id"));
    };
    QCOMPARE(kept().size(), 20);
    lab.index->setOrphanRetention(3);
    const auto rollBack = [&](const QByteArray& name) {
        const qint64 id = lab.index
                              ->rollBack(*lab.index->checkpoint(), forkAt(2, "a2"),
                                         indexer::reorg_reason::kHashMismatch)
                              .reorgId;
        lab.commit(run(name, 3, 3, "a2", false));
        return QString::number(id);
    };
    // 21 rollbacks, 3 to keep: the oldest 16 go with this one, the last 2 with the next.
    const QString r21 = rollBack("s");
    QCOMPARE(kept().size(), 21 - forktree::kPrunePerWrite);
    QCOMPARE(kept().first(), QString::number(reorgs[forktree::kPrunePerWrite]));
    const QString r22 = rollBack("t");
    QCOMPARE(kept(), (QStringList{QString::number(reorgs.last()), r21, r22}));
    const forktree::ForkTreeWindow w =
        forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{0, 10});
    QCOMPARE(w.reorgCount, 3);
    QCOMPARE(w.branches.size(), 3);
    QCOMPARE(w.branches.first().blocks.first().hash, hashOf("s3")); // r22 removed s3
    lab.index->setOrphanRetention(0);
    rollBack("u");
    QCOMPARE(kept(), QStringList{});
}

// A node's head is stored when its hash changes, per node, and each node keeps its latest
// heads within the retention; the window holds the latest sighting of each head in it.
void TestForkTreeStore::nodeHeadsAreStoredWhenTheyChange()
{
    QFETCH(QString, backend);
    IndexStoreLab lab(storeOn(backend, QStringLiteral("sightings.sqlite")));
    lab.commit(run("a", 1, 6, "genesis", false));
    const QString n1 = QStringLiteral("http://node-1:8545");
    const QString n2 = QStringLiteral("http://node-2:8545");
    const auto seen = [](const QString& node, std::uint64_t number, const QByteArray& name) {
        return forktree::NodeSighting{node, number, hashOf(name), {}};
    };
    QCOMPARE(lab.index->recordSightings({seen(n1, 5, "a5"), seen(n2, 5, "a5")}), 2);
    QCOMPARE(lab.index->recordSightings({seen(n1, 5, "a5"), seen(n2, 5, "a5")}), 0);
    // node 1 moves on; node 2 reports another block 5 (its own branch), then back.
    QCOMPARE(lab.index->recordSightings({seen(n1, 6, "a6"), seen(n2, 5, "x5")}), 2);
    QCOMPARE(lab.index->recordSightings({seen(n1, 6, "a6"), seen(n2, 5, "a5")}), 1);
    QCOMPARE(lab.rows(QStringLiteral("SELECT node, block_number, block_hash FROM node_sightings "
                                     "ORDER BY id")),
             (QStringList{n1 + "|5|" + hashOf("a5").toHex(), n2 + "|5|" + hashOf("a5").toHex(),
                          n1 + "|6|" + hashOf("a6").toHex(), n2 + "|5|" + hashOf("x5").toHex(),
                          n2 + "|5|" + hashOf("a5").toHex()}));
    forktree::ForkTreeWindow w =
        forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{1, 10});
    QStringList heads;
    for (const forktree::NodeSighting& s : w.sightings)
        heads << s.node + ' ' + QString::number(s.number) + ' ' + s.hash.toHex().left(10);
    QStringList expected{
        n1 + " 5 " + hashOf("a5").toHex().left(10), n1 + " 6 " + hashOf("a6").toHex().left(10),
        n2 + " 5 " + hashOf("a5").toHex().left(10), n2 + " 5 " + hashOf("x5").toHex().left(10)};
    heads.sort();
    expected.sort();
    QCOMPARE(heads, expected);
    QVERIFY(w.sightings.first().seenAt.isValid());
    // Bounded: at most 2 of them in one reply, said so.
    forktree::ForkTreeBounds two;
    two.maxSightings = 2;
    w = forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{1, 10}, two);
    QCOMPARE(w.sightings.size(), 2);
    QVERIFY(w.truncated);
    // A node keeps its latest heads within the retention.
    lab.index->setOrphanRetention(2);
    lab.index->recordSightings({seen(n1, 7, "a7"), seen(n1, 8, "a8")});
    lab.index->recordSightings({seen(n1, 9, "a9")});
    QCOMPARE(lab.rows(QStringLiteral("SELECT block_number FROM node_sightings WHERE node = ? "
                                     "ORDER BY id"),
                      {n1}),
             (QStringList{"8", "9"}));
}

// A window at most kFullSpineWindow wide holds every canonical block; a wider one those
// within kSpineContext of a fork point, a sighting or its ends; branches are bounded.
void TestForkTreeStore::aWideWindowHoldsTheSpineNearWhatHappened()
{
    QFETCH(QString, backend);
    IndexStoreLab lab(storeOn(backend, QStringLiteral("wide.sqlite")));
    lab.commit(run("a", 1, 10000, "genesis", false));
    const auto cp = [&] { return *lab.index->checkpoint(); };
    lab.index->rollBack(cp(), forkAt(9998, "a9998"), indexer::reorg_reason::kHashMismatch);
    lab.commit(run("b", 9999, 10000, "a9998", false));
    lab.index->rollBack(cp(), forkAt(9999, "b9999"), indexer::reorg_reason::kHashMismatch);
    lab.commit(run("c", 10000, 10000, "b9999", false));
    lab.index->recordSightings({{QStringLiteral("n"), 5000, hashOf("a5000"), {}}});

    // 4,096 blocks: all of them.
    forktree::ForkTreeWindow w =
        forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{4001, 8096});
    QCOMPARE(w.canonical.size(), 4096);
    QCOMPARE(w.canonical.first().number, 4001u);
    QCOMPARE(w.canonical.last().number, 8096u);
    QCOMPARE(w.canonical[999].hash, hashOf("a5000"));
    // 4,097: around the ends and the sighting only.
    w = forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{4001, 8097});
    QList<std::uint64_t> expected;
    for (std::uint64_t n = 4001; n <= 4005; ++n)
        expected << n;
    for (std::uint64_t n = 4996; n <= 5004; ++n)
        expected << n;
    for (std::uint64_t n = 8093; n <= 8097; ++n)
        expected << n;
    QCOMPARE(numbersOf(w.canonical), expected);
    QVERIFY(w.branches.isEmpty());
    // The whole chain: its ends, the sighting, the fork points 9998 and 9999.
    w = forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{1, 10000});
    expected = {1, 2, 3, 4, 5};
    for (std::uint64_t n = 4996; n <= 5004; ++n)
        expected << n;
    for (std::uint64_t n = 9994; n <= 10000; ++n)
        expected << n;
    QCOMPARE(numbersOf(w.canonical), expected);
    QCOMPARE(w.canonical.last().hash, hashOf("c10000"));
    QCOMPARE(w.branches.size(), 2);
    QVERIFY(!w.truncated);
    // Bounded: one branch (the newest), or 3 spine blocks, per reply, said so.
    forktree::ForkTreeBounds small;
    small.maxBranches = 1;
    w = forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{1, 10000},
                               small);
    QCOMPARE(w.branches.size(), 1);
    QCOMPARE(w.branches.first().forkPoint, 9999u);
    QVERIFY(w.truncated);
    small = {};
    small.maxCanonicalBlocks = 3;
    w = forktree::readForkTree(lab.index->reader(), kEnv, forktree::ForkTreeRequest{1, 10000},
                               small);
    QCOMPARE(numbersOf(w.canonical), (QList<std::uint64_t>{1, 2, 3}));
    QVERIFY(w.truncated);
}

// An orphaned block's rows are what its rollback removed as the reorg diff shows them, each
// Transfer with the diff's "back in the re-indexed chain", its delivered outbox row and the
// retraction; a canonical block's are its stored logs, Transfers and delivered rows. The read
// service answers both off the caller's thread.
void TestForkTreeStore::blockRowsAreTheStoredOrTheRemovedRows()
{
    QFETCH(QString, backend);
    IndexStoreLab lab(storeOn(backend, QStringLiteral("rows.sqlite")));
    // Block 2 of branch A: three Transfers; delivered.
    lab.commit(branchOf("A", {5, 6, 7}));
    RecordingSink sink;
    {
        const auto queue = store::openOutboxQueue(lab.db, kEnv, kChain);
        outbox::OutboxDispatcher(*queue, sink).deliverRound(2);
    }
    QCOMPARE(sink.sent.size(), 3);
    // The third was sent, but its answer never recorded (a timeout, a crash): retracted too.
    lab.exec(lab.onPostgres() ? "UPDATE outbox_store SET delivered_at = NULL WHERE log_index = 2"
                              : "UPDATE outbox SET delivered_at = NULL WHERE event_key LIKE '%:2'");
    const qint64 reorg = lab.rollBack({1, hashOf("common")}).reorgId;
    // Branch B re-includes A's second Transfer (same transaction) and adds one of its own.
    indexer::VerifiedBatch b;
    b.blocks << header(1, "common", "genesis") << header(2, "B", "common");
    b.logs << transferLog(b.blocks.last(), 0, topicOf("alice"), topicOf("bob"), 6, "A-tx1")
           << transferLog(b.blocks.last(), 1, topicOf("alice"), topicOf("bob"), 9, "B-tx");
    lab.commit(b);

    const auto orphan = forktree::readForkBlock(lab.index->reader(), kEnv, hashOf("A"), 2);
    QVERIFY(orphan);
    QVERIFY(orphan->orphaned);
    QCOMPARE(orphan->reorgId, reorg);
    QCOMPARE(orphan->number, 2u);
    const auto diff = engine::readReorgDiff(lab.index->reader(), kEnv, reorg);
    QVERIFY(diff);
    QStringList expected;
    QStringList delivered;
    for (const engine::ReorgDiff::Item& it : diff->items)
        if (it.kind == QLatin1String("transfer_removed"))
            expected << QStringLiteral("%1|%2|%3|%4|%5|%6|%7|%8|")
                            .arg(int(forktree::ForkBlockRow::Kind::Transfer))
                            .arg(it.txHash)
                            .arg(it.logIndex)
                            .arg(it.contract, it.from, it.to, it.value)
                            .arg(int(it.again != engine::ReorgDiff::Item::Again::No));
        else if (it.kind == QLatin1String("outbox_delivered_reorged"))
            delivered << QString::number(int(forktree::ForkBlockRow::Kind::OutboxDelivered)) + ' ' +
                             it.eventKey;
        else if (it.kind == QLatin1String("outbox_unconfirmed_retracted"))
            delivered << QString::number(int(forktree::ForkBlockRow::Kind::OutboxUnconfirmed)) +
                             ' ' + it.eventKey;
    QCOMPARE(expected.size(), 3);
    QCOMPARE(delivered.size(), 3);
    QVERIFY2(delivered.last().startsWith(
                 QString::number(int(forktree::ForkBlockRow::Kind::OutboxUnconfirmed))),
             qPrintable(delivered.join(", ")));
    QStringList shown = rowsOf(*orphan);
    QCOMPARE(shown.mid(0, 3), expected);
    // A's second Transfer is back (the same transaction in B), the others are not.
    QList<bool> back;
    for (const forktree::ForkBlockRow& r : orphan->rows.mid(0, 3))
        back << r.cameBack;
    QCOMPARE(back, (QList<bool>{false, true, false}));
    QStringList keys;
    for (const forktree::ForkBlockRow& r : orphan->rows.mid(3))
        keys << QString::number(int(r.kind)) + ' ' + r.eventKey;
    QStringList expectedKeys = delivered;
    for (const QString& k : delivered)
        expectedKeys << QString::number(int(forktree::ForkBlockRow::Kind::OutboxRetraction)) +
                            " retract:" + k.section(' ', 1);
    QCOMPARE(keys, expectedKeys);
    QVERIFY(!orphan->truncated);
    // Bounded.
    const auto one = forktree::readForkBlock(lab.index->reader(), kEnv, hashOf("A"), 2, 1);
    QCOMPARE(one->rows.size(), 1);
    QVERIFY(one->truncated);

    // Canonical: B's two Transfers, as transfer_events stores them; found by hash alone too.
    const auto canonical = forktree::readForkBlock(lab.index->reader(), kEnv, hashOf("B"));
    QVERIFY(canonical);
    QVERIFY(!canonical->orphaned);
    QStringList stored;
    for (const QString& row :
         lab.rows(QStringLiteral("SELECT tx_hash, log_index, contract, from_addr, to_addr, value "
                                 "FROM transfer_events WHERE block_number = 2 ORDER BY "
                                 "log_index")))
        stored << QString::number(int(forktree::ForkBlockRow::Kind::Transfer)) + '|' + row + "|0|";
    QCOMPARE(rowsOf(*canonical), stored);
    QVERIFY(!forktree::readForkBlock(lab.index->reader(), kEnv, hashOf("nowhere")));

    // Through the read service, on its own thread and connection.
    engine::ReadService read(lab.db);
    read.start();
    read.setScope(kEnv, kChain);
    QSignalSpy windows(&read, &engine::ReadService::forkTreeAvailable);
    QSignalSpy blocks(&read, &engine::ReadService::forkBlockAvailable);
    read.requestForkTree({1, 2});
    QVERIFY(windows.wait(10000));
    const auto w = windows.first().first().value<forktree::ForkTreeSnapshot>().window;
    QCOMPARE(w.branches.size(), 1);
    QCOMPARE(w.branches.first().reorgId, reorg);
    QCOMPARE(numbersOf(w.canonical), (QList<std::uint64_t>{1, 2}));
    read.requestForkBlock(hashOf("A"));
    QVERIFY(blocks.wait(10000));
    QCOMPARE(rowsOf(blocks.first().first().value<forktree::ForkBlockRows>()), rowsOf(*orphan));
    read.requestStop();
    QVERIFY(read.wait());

    // A deeper reorg before the retractions went out moves them down to its fork: A's block
    // still lists them.
    QVERIFY(lab.rollBack({0, hashOf("genesis")}).reorgId > reorg);
    QCOMPARE(lab.rows("SELECT count(*) FROM outbox WHERE event_key LIKE 'retract:%' AND "
                      "block_number = 0"),
             QStringList{"3"});
    const auto later = forktree::readForkBlock(lab.index->reader(), kEnv, hashOf("A"), 2);
    QVERIFY(later);
    QCOMPARE(rowsOf(*later).mid(3), shown.mid(3)); // the Transfers are not back any more
}

// `forkscope index` across a real reorg on anvil: the branch it rolled back is kept with the
// node's old hashes, the node's head is recorded, verify and the invariants stay clean, and
// the report counts the orphaned blocks.
void TestForkTreeStore::aRealReorgKeepsItsBranchAndVerifyStaysClean()
{
    QFETCH(QString, backend);
    IndexerLab lab(m_stores.freshDatabase(backend));
    lab.deployToken(QStringLiteral("FT"));
    lab.sprayAll(4, 2, 3);
    const QString env = QStringLiteral("tree");
    VERIFY_EXIT_OK(lab.runIndex(env, {QStringLiteral("--exit-when-synced")}));
    const qint64 head = lab.checkpointOf(env);
    QStringList before;
    for (qint64 n = head - 2; n <= head; ++n)
        before << lab.text(QStringLiteral("SELECT block_hash FROM blocks WHERE environment_id = "
                                          "? AND block_number = ?"),
                           {env, n});
    lab.reorg(3);
    lab.mine(1);
    // The engine's indexing service, as `forkscope index` and the app run it, follows the
    // reorg and stores the node's head as its health polls see it.
    {
        engine::IndexingOptions o;
        o.indexer.rpcUrl = lab.devnet().url();
        o.indexer.dbPath = lab.db();
        o.indexer.environmentId = env;
        o.indexer.contracts = lab.contracts();
        o.indexer.pollInterval = std::chrono::milliseconds(50);
        o.healthInterval = std::chrono::milliseconds(50);
        engine::IndexingService service(o);
        QSignalSpy reorged(&service, &engine::IndexingService::reorged);
        service.start();
        QVERIFY(reorged.wait(30000));
        const auto sighted = [&] {
            return lab.count(QStringLiteral("SELECT count(*) FROM node_sightings WHERE "
                                            "environment_id = ? AND block_number = ? AND "
                                            "block_hash = ?"),
                             {env, head + 1,
                              lab.text(QStringLiteral("SELECT block_hash FROM blocks WHERE "
                                                      "environment_id = ? AND block_number = ?"),
                                       {env, head + 1})});
        };
        QTRY_VERIFY_WITH_TIMEOUT(sighted() == 1, 30000);
        service.requestStop();
        QVERIFY(service.wait());
    }
    QCOMPARE(lab.rows(QStringLiteral("SELECT block_hash FROM orphaned_blocks WHERE "
                                     "environment_id = ? ORDER BY block_number"),
                      {env}),
             before);
    // One row per head the node moved to (the polls, every 50 ms, saw each many times).
    QCOMPARE(lab.count(QStringLiteral("SELECT count(*) FROM node_sightings WHERE environment_id "
                                      "= ?"),
                       {env}),
             lab.count(QStringLiteral("SELECT count(DISTINCT block_hash) FROM node_sightings "
                                      "WHERE environment_id = ?"),
                       {env}));
    const QStringList problems = lab.verify(env);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("verify"), QStringLiteral("--db"), lab.db(),
                                       QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                       lab.devnet().url().toString()}));
    const QString out = lab.tempPath(QStringLiteral("report.json"));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("report"), QStringLiteral("--db"), lab.db(),
                                       QStringLiteral("--env"), env, QStringLiteral("--format"),
                                       QStringLiteral("json"), QStringLiteral("--out"), out}));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(report.value("counts").toObject().value("orphaned_blocks").toInteger(), 3);
    QCOMPARE(report.value("invariants").toObject().value("state").toString(),
             QStringLiteral("hold"));

    // The PDF draws the tree of the indexed range, read from the store: its one branch.
    const QString pdf = lab.tempPath(QStringLiteral("report.pdf"));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("report"), QStringLiteral("--db"), lab.db(),
                                       QStringLiteral("--env"), env, QStringLiteral("--format"),
                                       QStringLiteral("pdf"), QStringLiteral("--out"), pdf}));
    QProcess text;
    text.start(QStandardPaths::findExecutable(QStringLiteral("pdftotext")),
               {pdf, QStringLiteral("-")});
    QVERIFY(text.waitForFinished(30000));
    const QString words = QString::fromUtf8(text.readAllStandardOutput()).simplified();
    QVERIFY2(words.contains(QStringLiteral("Fork tree")) &&
                 words.contains(QStringLiteral("1 branch kept")),
             qPrintable(words));
}

QTEST_GUILESS_MAIN(TestForkTreeStore)
#include "tst_forktreestore.moc"
