// InvariantChecker, the lab's verdict and the report's invariant check, on an index of more
// than one of its 100-block chunks: a clean copy holds with every row counted, and a copy
// tampered through SQL in a later chunk (a log, a transfer, a balance, an outbox row, a
// block; rows left above a checkpoint moved back) names what is wrong, also with the stored
// blocks read in pages of one; and a commit made while the check runs is not seen by it.
// Each case works on its own copy (VACUUM INTO), so the cases do not disturb one another.
#include "IndexerLab.h"
#include "indexer/InvariantChecker.h"
#include "store/ContractReader.h"
#include "store/Database.h"

#include <QSqlQuery>
#include <QtTest>

using namespace forkscope;
using namespace forkscope::test;

namespace {
// Reads through `inner`, but runs `commit` once, just before the first query after the
// checkpoint's. As when the indexer commits while the lab's verdict runs.
class CommitMidCheckReader : public store::ContractReader
{
public:
    CommitMidCheckReader(store::ContractReader& inner, std::function<void()> commit)
        : m_inner(inner), m_commit(std::move(commit))
    {
    }
    std::unique_ptr<store::ContractRows> query(const QString& sql,
                                               const QVariantList& args) override
    {
        if (m_commit && !sql.contains(QStringLiteral("FROM indexer_checkpoints")))
            std::exchange(m_commit, {})();
        return m_inner.query(sql, args);
    }
    store::OutboxTally outboxTally(const QString& env, qint64 chainId) override
    {
        return m_inner.outboxTally(env, chainId);
    }
    QString reorgDiffRecordedSql() const override { return m_inner.reorgDiffRecordedSql(); }
    qint64 storedOutboxBelow(const QString& env, qint64 chainId) override
    {
        return m_inner.storedOutboxBelow(env, chainId);
    }
    QString describe() const override { return m_inner.describe(); }
    std::unique_ptr<store::ContractSnapshot> snapshot() override { return m_inner.snapshot(); }

private:
    store::ContractReader& m_inner;
    std::function<void()> m_commit;
};
} // namespace

class TestInvariantChecker : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void aCleanIndexHoldsEveryRowCounted_data();
    void aCleanIndexHoldsEveryRowCounted();
    void aTamperedRowIsNamed_data();
    void aTamperedRowIsNamed();
    void aCommitDuringTheCheckIsNotSeen();

private:
    // A copy of the indexed file, `sql` run on it, then checked against the node, its stored
    // blocks read `blocksPerPage` at a time.
    indexer::InvariantReport
    checkCopy(const QString& name, const QStringList& sql,
              int blocksPerPage = indexer::InvariantChecker::kBlocksPerPage);
    QString sourceOf(store::Database& db) const;
    // A copy of the indexed file (VACUUM INTO) named `name`, opened.
    std::unique_ptr<store::Database> copyOfIndex(const QString& name);
    qint64 count(const QString& sql) const { return m_lab->count(sql); }

    std::unique_ptr<IndexerLab> m_lab;
    qint64 m_late = 0; // a block with Transfers in the index's second chunk
    int m_copies = 0;
};

void TestInvariantChecker::initTestCase()
{
    m_lab = std::make_unique<IndexerLab>();
    m_lab->deployToken("AAA");
    m_lab->deployToken("BBB");
    m_lab->sprayAll(30, 4, 20); // one block per transaction: 60 blocks of 4 Transfers
    m_lab->mine(100);
    m_lab->sprayAll(10, 4, 20);
    VERIFY_EXIT_OK(m_lab->runIndex("env", {"--exit-when-synced"}));
    m_late = count("SELECT max(block_number) FROM transfer_events WHERE environment_id = 'env'");
    QVERIFY2(m_late > 110, qPrintable(QString::number(m_late)));
}

indexer::InvariantReport TestInvariantChecker::checkCopy(const QString& name,
                                                         const QStringList& sql, int blocksPerPage)
{
    auto db = copyOfIndex(name);
    for (const QString& statement : sql)
        db->run(QString(statement).replace(QStringLiteral("LATE"), QString::number(m_late)));
    store::SqliteContractReader reader(*db);
    indexer::InvariantChecker checker(reader, m_lab->eth());
    checker.setBlocksPerPage(blocksPerPage);
    return checker.check(QStringLiteral("env"), sourceOf(*db), m_lab->contracts());
}

std::unique_ptr<store::Database> TestInvariantChecker::copyOfIndex(const QString& name)
{
    const QString path = m_lab->tempPath(name + QStringLiteral(".sqlite"));
    {
        auto db = store::Database::open(m_lab->dbPath());
        db->run(QStringLiteral("VACUUM INTO ?"), {path});
    }
    return store::Database::open(path);
}

QString TestInvariantChecker::sourceOf(store::Database& db) const
{
    QSqlQuery q = db.run(
        QStringLiteral("SELECT source_id FROM indexer_checkpoints WHERE environment_id = 'env'"));
    if (!q.next())
        qFatal("no checkpoint for env");
    return q.value(0).toString();
}

void TestInvariantChecker::aCleanIndexHoldsEveryRowCounted_data()
{
    // The stored blocks are read in pages (a PostgreSQL result is held whole): a page per
    // block, pages that end anywhere, one page for all.
    QTest::addColumn<int>("blocksPerPage");
    QTest::newRow("pages of one block") << 1;
    QTest::newRow("pages of seven blocks") << 7;
    QTest::newRow("one page") << int(indexer::InvariantChecker::kBlocksPerPage);
}

void TestInvariantChecker::aCleanIndexHoldsEveryRowCounted()
{
    QFETCH(int, blocksPerPage);
    const indexer::InvariantReport r =
        checkCopy(QStringLiteral("clean-%1").arg(blocksPerPage), {}, blocksPerPage);
    QVERIFY2(r.ok(), qPrintable(r.summary()));
    QCOMPARE(r.blocks, count("SELECT count(*) FROM blocks WHERE environment_id = 'env'"));
    QVERIFY(r.blocks > 110); // more than one chunk
    QCOMPARE(r.logs, count("SELECT count(*) FROM logs WHERE environment_id = 'env'"));
    QCOMPARE(r.transfers,
             count("SELECT count(*) FROM transfer_events WHERE environment_id = 'env'"));
    QCOMPARE(r.balances, count("SELECT count(*) FROM token_balances WHERE environment_id = 'env'"));
    QCOMPARE(r.outboxRows, count("SELECT count(*) FROM outbox WHERE environment_id = 'env'"));
}

void TestInvariantChecker::aTamperedRowIsNamed_data()
{
    QTest::addColumn<QStringList>("sql");
    QTest::addColumn<QString>("named"); // LATE: the late block's number
    QTest::addColumn<int>("blocksPerPage");
    const int kOnePage = indexer::InvariantChecker::kBlocksPerPage;
    const QString late = QStringLiteral("environment_id = 'env' AND block_number = LATE");
    QTest::newRow("a log deleted")
        << QStringList{"DELETE FROM log_store WHERE " + late + " AND log_index = 1"}
        << QStringLiteral("log LATE/1 on the node is missing from the database") << kOnePage;
    QTest::newRow("a log's data edited")
        << QStringList{"UPDATE log_store SET data = x'00' WHERE " + late + " AND log_index = 1"}
        << QStringLiteral("stored log LATE/1 differs from the node's") << kOnePage;
    QTest::newRow("a log's transaction hash edited")
        << QStringList{"UPDATE log_store SET tx_hash = zeroblob(32) WHERE " + late +
                       " AND log_index = 1"}
        << QStringLiteral("stored log LATE/1 differs from the node's") << kOnePage;
    QTest::newRow("a log's address edited")
        << QStringList{"UPDATE log_store SET address = zeroblob(20) WHERE " + late +
                       " AND log_index = 1"}
        << QStringLiteral("stored log LATE/1 differs from the node's") << kOnePage;
    QTest::newRow("a topic the log does not have added")
        << QStringList{"UPDATE log_store SET topic3 = zeroblob(32) WHERE " + late +
                       " AND log_index = 1"}
        << QStringLiteral("stored log LATE/1 differs from the node's") << kOnePage;
    QTest::newRow("a log's block hash edited, so its outbox row names another block")
        << QStringList{"UPDATE log_store SET block_hash = zeroblob(32) WHERE " + late +
                       " AND log_index = 1"}
        << QString("pending outbox row transfer:LATE:0x" + QString(64, u'0') +
                   ":1 has no live transfer")
        << kOnePage;
    // The stored row, not its log, is what the balances are summed from.
    QTest::newRow("a transfer's recipient edited")
        << QStringList{"UPDATE log_store SET topic2 = zeroblob(32) WHERE " + late +
                       " AND log_index = 1"}
        << QString("no balance row for 0x" + QString(40, u'0')) << kOnePage;
    QTest::newRow("a transfer's value edited")
        << QStringList{"UPDATE log_store SET transfer_value = '7' WHERE " + late +
                       " AND log_index = 1"}
        << QStringLiteral("transfer LATE/1 differs from its log") << kOnePage;
    QTest::newRow("a balance edited")
        << QStringList{"UPDATE balance_store SET balance = '12345' WHERE environment_id = 'env' "
                       "AND holder = (SELECT holder FROM balance_store WHERE environment_id = "
                       "'env' AND updated_at_block = LATE LIMIT 1)"}
        << QStringLiteral(", transfers sum to ") << kOnePage;
    // A pending Transfer's row is its log (rendered); a delivered one is stored, and the
    // outbox cursor says every row below it is. Deleting a stored row there is found.
    QTest::newRow("a delivered outbox row deleted")
        << QStringList{"UPDATE outbox SET delivered_at = '2026-12-05T00:00:00.000Z' WHERE " + late,
                       "INSERT INTO outbox_cursor SELECT environment_id, chain_id, LATE + 1 FROM "
                       "environments WHERE environment_id = 'env'",
                       "DELETE FROM outbox_store WHERE " + late + " AND log_index = 1"}
        << QStringLiteral("lost its stored row below the outbox cursor (block LATE_PLUS_1)")
        << kOnePage;
    QTest::newRow("a block's hash edited")
        << QStringList{"UPDATE block_store SET block_hash = zeroblob(32) WHERE " + late}
        << QStringLiteral("block LATE is not the node's block") << kOnePage;
    QTest::newRow("a block row deleted")
        << QStringList{"DELETE FROM block_store WHERE environment_id = 'env' AND block_number = "
                       "LATE - 1"}
        << QStringLiteral("gap in blocks: expected LATE_MINUS_1, found LATE") << kOnePage;
    QTest::newRow("the checkpoint moved back under its rows")
        << QStringList{"UPDATE indexer_checkpoints SET block_number = LATE - 1, block_hash = "
                       "(SELECT block_hash FROM blocks WHERE environment_id = 'env' AND "
                       "block_number = LATE - 1) WHERE environment_id = 'env'"}
        << QStringLiteral("stored log LATE/1 is outside the indexed blocks") << kOnePage;
    // The chain check again with every stored block a page of its own: a gap, an edited
    // block and rows above the checkpoint are seen across pages as within one.
    QTest::newRow("a block's hash edited, a block per page")
        << QStringList{"UPDATE block_store SET block_hash = zeroblob(32) WHERE " + late}
        << QStringLiteral("block LATE is not the node's block") << 1;
    QTest::newRow("a block row deleted, a block per page")
        << QStringList{"DELETE FROM block_store WHERE environment_id = 'env' AND block_number = "
                       "LATE - 1"}
        << QStringLiteral("gap in blocks: expected LATE_MINUS_1, found LATE") << 1;
    QTest::newRow("the checkpoint moved back under its rows, a block per page")
        << QStringList{"UPDATE indexer_checkpoints SET block_number = LATE - 1, block_hash = "
                       "(SELECT block_hash FROM blocks WHERE environment_id = 'env' AND "
                       "block_number = LATE - 1) WHERE environment_id = 'env'"}
        << QStringLiteral("block LATE is stored above the checkpoint LATE_MINUS_1") << 1;
}

void TestInvariantChecker::aTamperedRowIsNamed()
{
    QFETCH(QStringList, sql);
    QFETCH(QString, named);
    QFETCH(int, blocksPerPage);
    indexer::InvariantReport r;
    try {
        r = checkCopy(QStringLiteral("copy-%1").arg(++m_copies), sql, blocksPerPage);
    } catch (const std::exception& e) {
        QFAIL(e.what()); // a violation is reported, never thrown
    }
    named.replace(QStringLiteral("LATE_MINUS_1"), QString::number(m_late - 1))
        .replace(QStringLiteral("LATE_PLUS_1"), QString::number(m_late + 1))
        .replace(QStringLiteral("LATE"), QString::number(m_late));
    QVERIFY2(!r.ok(), "the tampered copy passed");
    bool found = false;
    for (const QString& v : r.violations)
        found = found || v.contains(named);
    QVERIFY2(found, qPrintable(named + QStringLiteral("\n") + r.violations.join('\n')));
    // Each stored block is compared with the node's block of its own number, a gap or not:
    // no block the node has is called another.
    for (const QString& v : r.violations)
        QVERIFY2(!v.contains(QStringLiteral("is not the node's block")) ||
                     QByteArray(QTest::currentDataTag()).startsWith("a block's hash edited"),
                 qPrintable(v));
}

void TestInvariantChecker::aCommitDuringTheCheckIsNotSeen()
{
    // Another connection commits a block above the checkpoint and moves the checkpoint to it
    // after the check has read the checkpoint: seen, its row would be a block "stored above
    // the checkpoint" that no state of the file ever had. The check reads one snapshot.
    auto db = copyOfIndex(QStringLiteral("concurrent"));
    const QString path = db->path();
    const qint64 top = count("SELECT block_number FROM indexer_checkpoints WHERE "
                             "environment_id = 'env'");
    store::SqliteContractReader sqlite(*db);
    CommitMidCheckReader reader(sqlite, [&] {
        auto writer = store::Database::open(path);
        store::WriteTransaction tx(*writer);
        writer->run(QStringLiteral("INSERT INTO block_store SELECT environment_id, chain_id, "
                                   "block_number + 1, zeroblob(32), block_hash, "
                                   "block_timestamp + 1 FROM block_store WHERE environment_id = "
                                   "'env' AND block_number = ?"),
                    {top});
        writer->run(
            QStringLiteral("UPDATE indexer_checkpoints SET block_number = ?, block_hash "
                           "= '0x' || lower(hex(zeroblob(32))) WHERE environment_id = 'env'"),
            {top + 1});
        tx.commit();
    });
    indexer::InvariantChecker checker(reader, m_lab->eth());
    const indexer::InvariantReport r =
        checker.check(QStringLiteral("env"), sourceOf(*db), m_lab->contracts());
    QVERIFY2(r.ok(), qPrintable(r.summary() + QStringLiteral("\n") + r.violations.join('\n')));
    QCOMPARE(r.blocks, count("SELECT count(*) FROM blocks WHERE environment_id = 'env'"));
    // The commit happened: a check now sees it.
    QSqlQuery q = db->run(QStringLiteral("SELECT count(*) FROM block_store WHERE "
                                         "environment_id = 'env' AND block_number = ?"),
                          {top + 1});
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 1);
}

QTEST_GUILESS_MAIN(TestInvariantChecker)
#include "tst_invariantchecker.moc"
