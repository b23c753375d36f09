// `forkscope lab reset` on a real anvil and a real database: every refusal (not an anvil,
// unreachable node, locked database, bad ids) changes neither the database nor the node;
// a reset archives the old environment with every row intact, registers the new chain,
// the new environment indexes with the invariants holding, and the archived one refuses.
#include "EnvironmentDump.h"
#include "IndexerLab.h"
#include "RawHttpServer.h"
#include "indexer/EnvironmentRegistry.h"
#include "lab/LabReset.h"
#include "store/Database.h"

#include <QSqlQuery>
#include <QSqlRecord>
#include <QtTest>

using namespace forkscope;
using test::environmentDump;
using test::IndexerLab;
using test::ProcessRun;

namespace {

std::unique_ptr<store::Database> readOnly(const QString& path)
{
    store::Database::Options ro;
    ro.readOnly = true;
    return store::Database::open(path, ro);
}

} // namespace

class TestLabReset : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void refusalsChangeNothing_data();
    void refusalsChangeNothing();
    void resetArchivesEveryRowAndOpensANewEnvironment();
    void newEnvironmentIndexesWithInvariantsHolding();
    void archivedEnvironmentRefusesIndexing();
    void registryListsNewestFirst();
    void defaultResetArchivesTheLiveEnvironmentOfThisNode();
    void runningIndexerCannotWriteIntoItsArchivedEnvironment_data();
    void runningIndexerCannotWriteIntoItsArchivedEnvironment();

private:
    qint64 count(const QString& table, const QString& env)
    {
        return m_lab->count(
            QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = '%2'").arg(table, env));
    }
    QStringList resetArgs(const QUrl& url, const QStringList& extra = {}) const
    {
        return QStringList{"lab", "reset", "--db", m_lab->dbPath(), "--rpc", url.toString()} +
               extra;
    }

    std::unique_ptr<IndexerLab> m_lab;
    std::unique_ptr<test::RawHttpServer> m_notAnvil;
    QString m_envADump;
};

void TestLabReset::initTestCase()
{
    m_lab = std::make_unique<IndexerLab>();
    m_lab->deployToken("AAA");
    m_lab->sprayAll(5, 4, 8);
    VERIFY_EXIT_OK(m_lab->runIndex("env-a", {"--exit-when-synced"}));
    m_lab->reorg(2); // so the archive also holds reorg rows and their diffs
    VERIFY_EXIT_OK(m_lab->runIndex("env-a", {"--exit-when-synced"}));
    QVERIFY(count("reorg_events", "env-a") >= 1);
    QVERIFY(count("reorg_diff_items", "env-a") >= 1);
    m_envADump = environmentDump(m_lab->dbPath(), "env-a");

    // A JSON-RPC server that knows no anvil_* method (nor anything else).
    m_notAnvil = std::make_unique<test::RawHttpServer>();
    m_notAnvil->respondWith(
        200, R"({"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}})");
}

void TestLabReset::refusalsChangeNothing_data()
{
    // clang-format off
    QTest::addColumn<QString>("node"); // anvil, not-anvil, closed
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("db"); // empty: the lab's
    QTest::addColumn<bool>("locked");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("mentions");
    QTest::newRow("not an anvil") << "not-anvil" << QStringList{} << QString() << false << 1
                                  << QStringList{
                                         "is not an anvil devnet (anvil_reset: method not found",
                                         "nothing was archived"};
    QTest::newRow("unreachable node")
        << "closed" << QStringList{} << QString() << false << 1
        << QStringList{"unreachable", "nothing was reset or archived"};
    QTest::newRow("new id already taken")
        << "anvil" << QStringList{"--env", "env-a"} << QString() << false << 1
        << QStringList{"environment env-a already exists", "nothing was reset"};
    QTest::newRow("unknown environment to archive")
        << "anvil" << QStringList{"--archive", "nope"} << QString() << false << 1
        << QStringList{"no environment nope to archive", "env-a (live)"};
    QTest::newRow("missing database")
        << "anvil" << QStringList{} << "/nonexistent/lab.sqlite" << false << 1
        << QStringList{"/nonexistent/lab.sqlite", "does not exist"};
    QTest::newRow("locked database")
        << "anvil" << QStringList{} << QString() << true << 1 << QStringList{"locked"};
    QTest::newRow("bad rpc url") << "ftp" << QStringList{} << QString() << false << 2
                                 << QStringList{"--rpc"};
    // clang-format on
}

void TestLabReset::refusalsChangeNothing()
{
    QFETCH(QString, node);
    QFETCH(QStringList, extra);
    QFETCH(QString, db);
    QFETCH(bool, locked);
    QFETCH(int, exitCode);
    QFETCH(QStringList, mentions);

    const QString dump = m_lab->dump();
    const auto head = m_lab->eth().blockNumber();
    const auto genesis = m_lab->eth().blockByNumber(0)->hash;

    QUrl url = m_lab->devnet().url();
    if (node == "not-anvil")
        url = m_notAnvil->url();
    else if (node == "closed")
        url = QUrl(QStringLiteral("http://127.0.0.1:%1/").arg(lab::Devnet::findFreePort()));
    else if (node == "ftp")
        url = QUrl("ftp://127.0.0.1/");
    QStringList args = resetArgs(url, extra);
    if (!db.isEmpty())
        args[3] = db;

    std::unique_ptr<store::Database> holder;
    if (locked) {
        holder = store::Database::open(m_lab->dbPath());
        holder->beginWrite(); // another writer holds the lock for the whole attempt
    }
    const ProcessRun run =
        test::runForkscope(args, QProcessEnvironment::systemEnvironment(), 60000);
    if (holder) {
        holder->rollback();
        holder.reset();
    }
    VERIFY_ONE_ERROR_LINE(run, exitCode, mentions);
    QVERIFY(run.out.isEmpty());

    QCOMPARE(m_lab->dump(), dump);
    QCOMPARE(m_lab->eth().blockNumber(), head); // the node was not reset
    QCOMPARE(m_lab->eth().blockByNumber(0)->hash, genesis);
}

void TestLabReset::resetArchivesEveryRowAndOpensANewEnvironment()
{
    const QVariantList kept{count("blocks", "env-a"),          count("logs", "env-a"),
                            count("transfer_events", "env-a"), count("token_balances", "env-a"),
                            count("outbox", "env-a"),          count("reorg_events", "env-a")};
    QVERIFY(kept[0].toLongLong() > 0 && kept[2].toLongLong() > 0);
    const auto oldGenesis = m_lab->eth().blockByNumber(0)->hash.toHex();

    const ProcessRun run = test::runForkscope(resetArgs(m_lab->devnet().url(), {"--env", "env-b"}));
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    QVERIFY2(run.out.contains("archived environment: env-a (at "), qPrintable(run.out));
    QVERIFY2(run.out.contains("new environment: env-b (chain 31337)"), qPrintable(run.out));
    QVERIFY2(run.out.contains(
                 QStringLiteral("kept, read-only: %1 blocks, %2 logs, %3 transfers, %4 balances, "
                                "%5 outbox rows, %6 reorg events")
                     .arg(kept[0].toLongLong())
                     .arg(kept[1].toLongLong())
                     .arg(kept[2].toLongLong())
                     .arg(kept[3].toLongLong())
                     .arg(kept[4].toLongLong())
                     .arg(kept[5].toLongLong())),
             qPrintable(run.out));
    QVERIFY2(run.out.contains("(was " + oldGenesis + ")"), qPrintable(run.out));
    QVERIFY2(run.out.contains("forkscope index --rpc"), qPrintable(run.out));

    // The node really is a fresh chain, and every archived row is exactly as it was.
    QCOMPARE(m_lab->eth().blockNumber(), 0u);
    const auto newGenesis = m_lab->eth().blockByNumber(0)->hash.toHex();
    QVERIFY(newGenesis != oldGenesis);
    QCOMPARE(environmentDump(m_lab->dbPath(), "env-a"), m_envADump);

    auto db = readOnly(m_lab->dbPath());
    QSqlQuery a = db->run(
        "SELECT genesis_hash, archived_at FROM environments WHERE environment_id = 'env-a'");
    QVERIFY(a.next());
    QCOMPARE(a.value(0).toString(), oldGenesis);
    QVERIFY(!a.value(1).isNull());
    QSqlQuery b =
        db->run("SELECT chain_id, genesis_hash, rpc_url, archived_at FROM environments WHERE "
                "environment_id = 'env-b'");
    QVERIFY(b.next());
    QCOMPARE(b.value(0).toLongLong(), 31337);
    QCOMPARE(b.value(1).toString(), newGenesis);
    QCOMPARE(b.value(2).toString(), m_lab->devnet().url().toString());
    QVERIFY(b.value(3).isNull());
    QCOMPARE(m_lab->count("SELECT count(*) FROM blocks WHERE environment_id = 'env-b'"), 0);
}

void TestLabReset::newEnvironmentIndexesWithInvariantsHolding()
{
    m_lab->tokens().clear(); // the reset chain has no contracts
    m_lab->deployToken("BBB");
    m_lab->sprayAll(4, 3, 6);
    VERIFY_EXIT_OK(m_lab->runIndex("env-b", {"--exit-when-synced"}));
    const QStringList problems = m_lab->verify("env-b");
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    QVERIFY(count("transfer_events", "env-b") > 0);
    QCOMPARE(environmentDump(m_lab->dbPath(), "env-a"), m_envADump); // never mixed
}

void TestLabReset::archivedEnvironmentRefusesIndexing()
{
    const QString dump = m_lab->dump();
    const ProcessRun run = m_lab->runIndex("env-a", {"--exit-when-synced"});
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QCOMPARE(run.err.trimmed().count('\n'), 0);
    QVERIFY2(run.err.contains("environment env-a was archived at") && run.err.contains("read-only"),
             qPrintable(run.err));
    QCOMPARE(m_lab->dump(), dump);
}

void TestLabReset::registryListsNewestFirst()
{
    auto db = readOnly(m_lab->dbPath());
    const auto envs = indexer::EnvironmentRegistry(*db).list();
    QCOMPARE(envs.size(), 2);
    QCOMPARE(envs[0].id, QString("env-b"));
    QVERIFY(envs[0].archivedAt.isEmpty());
    QCOMPARE(envs[1].id, QString("env-a"));
    QVERIFY(!envs[1].archivedAt.isEmpty());
}

void TestLabReset::defaultResetArchivesTheLiveEnvironmentOfThisNode()
{
    const QString envBDump = environmentDump(m_lab->dbPath(), "env-b");
    lab::LabResetResult r;
    {
        auto db = store::Database::open(m_lab->dbPath());
        r = lab::LabReset::reset(*db, m_lab->rpc(), m_lab->devnet().url());
    }
    QCOMPARE(r.archivedEnvironmentIds, QStringList{"env-b"}); // env-a was archived already
    QCOMPARE(r.archivedEnvironmentId, QString("env-b"));
    QVERIFY2(QRegularExpression("^lab-\\d{8}-\\d{6}-\\d{3}$").match(r.newEnvironmentId).hasMatch(),
             qPrintable(r.newEnvironmentId));
    QCOMPARE(r.chainId, 31337u);
    QCOMPARE(r.newGenesisHash, m_lab->eth().blockByNumber(0)->hash.toHex());
    QCOMPARE(r.transfersKept, count("transfer_events", "env-b"));
    QCOMPARE(r.blocksKept, count("blocks", "env-b"));
    QCOMPARE(environmentDump(m_lab->dbPath(), "env-b"), envBDump);
    QCOMPARE(environmentDump(m_lab->dbPath(), "env-a"), m_envADump);
    QCOMPARE(m_lab->count("SELECT count(*) FROM environments WHERE archived_at IS NULL"), 1);
}

void TestLabReset::runningIndexerCannotWriteIntoItsArchivedEnvironment_data()
{
    // clang-format off
    QTest::addColumn<QString>("env");
    QTest::addColumn<bool>("reset"); // archived by a lab reset, or on the same chain
    // On the same chain only the commit's own check can notice: it must.
    QTest::newRow("archived on the same chain") << "env-c" << false;
    // After a reset the round's identity check (a new genesis) may notice first: either
    // refusal stops the indexer with nothing written.
    QTest::newRow("archived by a lab reset") << "env-e" << true;
    // clang-format on
}

void TestLabReset::runningIndexerCannotWriteIntoItsArchivedEnvironment()
{
    QFETCH(QString, env);
    QFETCH(bool, reset);
    m_lab->tokens().clear();
    m_lab->deployToken("CCC");
    m_lab->sprayAll(3, 3, 5);
    QProcess indexer; // following the head, as the app or a long-running index does
    indexer.start(QStringLiteral(FORKSCOPE_BINARY),
                  m_lab->indexArgs(env, {"--poll-ms", "50", "--from-block", "1"}));
    QVERIFY(indexer.waitForStarted(5000));
    // Synced means at the head and re-verified after getting there: the indexer's first
    // verification of a checkpoint it committed writes verified_at (later ones at most every
    // 30 s), a legitimate write that must not race the dump below. Timestamps are ISO with
    // milliseconds, so they compare as text.
    const QString synced = QStringLiteral("SELECT count(*) FROM indexer_checkpoints WHERE "
                                          "environment_id = '%1' AND block_number = %2 "
                                          "AND verified_at > updated_at")
                               .arg(env)
                               .arg(m_lab->eth().blockNumber());
    QTRY_VERIFY_WITH_TIMEOUT(m_lab->count(synced) == 1, 45000);
    const QString before = environmentDump(m_lab->dbPath(), env);

    if (reset) {
        VERIFY_EXIT_OK(test::runForkscope(resetArgs(m_lab->devnet().url(), {"--env", "env-d"})));
        // The reset chain grows past the checkpoint with other hashes: a "reorg" reaching
        // below the first indexed block (--from-block 1), whose rollback would delete the
        // archived history.
    } else {
        // What a reset or the app's Archive does to the row, with the node unchanged.
        auto db = store::Database::open(m_lab->dbPath());
        db->run(QStringLiteral("UPDATE environments SET archived_at = "
                               "'2025-01-02T03:04:05.678Z' WHERE environment_id = ?"),
                {env});
    }
    m_lab->mine(20);
    const ProcessRun run = test::waitForProcess(indexer, 30000);
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QCOMPARE(run.err.trimmed().count('\n'), 0);
    const bool archived =
        run.err.contains(QStringLiteral("environment %1 was archived at").arg(env)) &&
        run.err.contains("while this indexer was running");
    const bool chainReset =
        run.err.contains("the chain was reset") && run.err.contains("nothing more was written");
    QVERIFY2(archived || (reset && chainReset), qPrintable(run.err));
    QCOMPARE(environmentDump(m_lab->dbPath(), env), before);
}

QTEST_GUILESS_MAIN(TestLabReset)
#include "tst_labreset.moc"
