// `forkscope verify` and `forkscope repair` on a real anvil and a real SQLite file: a clean
// database verifies; holes punched by SQL are found (the block named) and repaired (verify
// clean again, the invariants and an independent balance sum hold, one reorg event with
// reason "repair"); a bloom false positive is counted, not a hole; bad arguments and
// refusals are one line and change nothing; the rules under them as tables.
#include "BackendLab.h"
#include "EnvironmentDump.h"
#include "IndexerLab.h"
#include "audit/AuditTarget.h"
#include "audit/BlockComparison.h"
#include "audit/EnvironmentRepair.h"
#include "audit/LogDerivedColumns.h"
#include "audit/StoredDataAuditor.h"
#include "chain/LogsBloom.h"
#include "chain/U256.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/TransferDecoder.h"
#include "lab/FaultProxy.h"
#include "lab/ProxyLie.h"
#include "store/ContractReader.h"
#include "store/Database.h"

#include <QProcess>
#include <QSqlQuery>
#include <QtTest>
#include <csignal>

using namespace forkscope;
using test::IndexerLab;
using test::ProcessRun;
using test::runForkscope;

namespace {

const QString kDemoAbi = QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json");

using Indexes = QList<std::uint64_t>;

// A stand-in for the receipts proof (core/proof is not in this build): the block's logs by
// hash, less one it is told to omit, to show the auditor compares with the proof's logs.
class ByHashProof : public audit::BlockLogsProof
{
public:
    ByHashProof(rpc::EthClient& eth, std::optional<std::pair<std::uint64_t, std::uint64_t>> omit)
        : m_eth(eth), m_omit(omit)
    {
    }
    QString name() const override { return QStringLiteral("by-hash test"); }
    QList<chain::LogEntry> provenLogs(const chain::BlockHeader& header) override
    {
        rpc::LogFilter f;
        f.blockHash = header.hash;
        QList<chain::LogEntry> logs = m_eth.getLogs(f);
        logs.removeIf([&](const chain::LogEntry& l) {
            return m_omit && l.blockNumber == m_omit->first && l.logIndex == m_omit->second;
        });
        return logs;
    }

private:
    rpc::EthClient& m_eth;
    std::optional<std::pair<std::uint64_t, std::uint64_t>> m_omit;
};

} // namespace

Q_DECLARE_METATYPE(forkscope::lab::ProxyLie)

// The suite's anvil and, for the rows that run on both stores, a PostgreSQL cluster
// (BackendLab: m_lab, m_cluster).
class TestVerify : public QObject, public test::BackendLab
{
    Q_OBJECT
private slots:
    void initTestCase();

    // The rules, as tables.
    void rangeRule_data();
    void rangeRule();
    void blockComparison_data();
    void blockComparison();
    void policyConfirmations();
    void hashMismatch_data();
    void hashMismatch();
    void transferColumns_data();
    void transferColumns();

    // Every column derived from the node, on both stores.
    void aCleanDatabaseHasNoFinding_data();
    void aCleanDatabaseHasNoFinding();
    void tampersAreFoundAndTheAdviceFixesThem_data();
    void tampersAreFoundAndTheAdviceFixesThem();
    void aRepairFromALaterBlockKeepsTheTamperFound_data();
    void aRepairFromALaterBlockKeepsTheTamperFound();
    void balanceOfNamesWhatTheTransfersDoNotExplain_data();
    void balanceOfNamesWhatTheTransfersDoNotExplain();

    // The commands.
    void cleanDatabaseVerifies();
    void holesAreFoundAndRepaired_data();
    void holesAreFoundAndRepaired();
    void bloomFalsePositiveIsCountedNotAHole();
    void aNodeThatTruncatesOrDropsCondemnsNoStoredRow();
    void aHoleTheRangeAnswerAlsoOmitsIsFoundByTheBloom();
    void aPluggedProofIsWhatBlocksAreComparedWith();
    void aLyingNodeIsNamedNotTrusted_data();
    void aLyingNodeIsNamedNotTrusted();
    void badArgumentsChangeNothing_data();
    void badArgumentsChangeNothing();
    void repairRefusesADatabaseOpenInAnotherProcess();
    void repairRefusesANodeOfAnotherChain();
    void anInterruptedRepairSaysWhereItStopped_data();
    void anInterruptedRepairSaysWhereItStopped();
    void repairOfAbiDecodedLogsDecodesThemAgain();
    void openCompletenessAlertsAreNamedAndRepaired();
    void receiptsProveEveryBlockWithOurLogs();
    void helpNamesTheCommands();
    void reorgedChainIsNamedNotAHole(); // last: it reorgs the shared chain

private:
    QStringList verifyArgs(const QString& env, const QStringList& extra = {}) const
    {
        return QStringList{"verify", "--db", m_lab->dbPath(), "--env", env, "--rpc", rpcUrl()} +
               extra;
    }
    QStringList repairArgs(const QString& env, const QStringList& extra = {}) const
    {
        return QStringList{"repair", "--db", m_lab->dbPath(), "--env", env, "--rpc", rpcUrl()} +
               extra;
    }
    QString rpcUrl() const { return m_lab->devnet().url().toString(); }
    qint64 count(const QString& sql) const { return m_lab->count(sql); }
    void exec(const QString& sql) const
    {
        auto db = store::Database::open(m_lab->dbPath());
        db->run(sql);
    }
    // A block of `env` holding at least `minLogs` logs, the n-th such (by height).
    std::uint64_t blockWithLogs(const QString& env, int minLogs, int nth) const;

    // Both stores as `--db` takes them: the suite's SQLite file and the cluster.
    void storeRows(const char* name,
                   const std::function<void(QTestData& row, const QString& db)>& fill) const;
    static bool isPg(const QString& db) { return store::pg::isPostgresUrl(db); }
    // `forkscope <command> --db db --env env --rpc <the lab's node>` + extra.
    QStringList commandOn(const char* command, const QString& db, const QString& env,
                          const QStringList& extra = {}) const
    {
        return QStringList{command, "--db", db, "--env", env, "--rpc", rpcUrl()} + extra;
    }
    void indexOn(const QString& db, const QString& env, const QStringList& extra = {});
    // The first column of the first row, through the store's read surface.
    QString textOn(const QString& db, const QString& sql, const QVariantList& args = {});
    void execOn(const QString& db, const QString& sql);
    // What a reader sees, to prove nothing changed: the whole file, or the row counts.
    QString stateOn(const QString& db, const QString& env);

    std::unique_ptr<lab::DemoToken> m_other; // a token the environments do not index
    std::uint64_t m_busyOtherBlock = 0;      // one block of 50 of its Transfers, none of ours
    QString m_badArgumentsState; // the dump the last row of badArgumentsChangeNothing proved
};

void TestVerify::initTestCase()
{
    m_cluster.start();
    m_lab = std::make_unique<IndexerLab>();
    m_lab->deployToken("AAA");
    m_lab->deployToken("BBB");
    m_other = std::make_unique<lab::DemoToken>(
        lab::DemoToken::deploy(m_lab->rpc(), lab::DemoToken::defaultSender(m_lab->rpc()),
                               "Other token", "OTH", chain::U256("1000000000000000000000000")));
    m_lab->sprayAll(30, 5, 12); // 30 blocks of 2 x 5 Transfers of ours
    m_other->spray(50, 0, 50);  // 50 Transfers to 50 holders: about 150 bloom bits
    m_busyOtherBlock = m_lab->eth().blockNumber();
    m_lab->sprayAll(10, 5, 12);
    VERIFY_EXIT_OK(m_lab->runIndex("clean", {"--exit-when-synced"}));
}

std::uint64_t TestVerify::blockWithLogs(const QString& env, int minLogs, int nth) const
{
    store::Database::Options ro;
    ro.readOnly = true;
    auto db = store::Database::open(m_lab->dbPath(), ro);
    QSqlQuery q = db->run(QStringLiteral("SELECT block_number FROM logs WHERE environment_id = ? "
                                         "GROUP BY block_number HAVING count(*) >= ? ORDER BY "
                                         "block_number LIMIT 1 OFFSET ?"),
                          {env, minLogs, nth});
    if (!q.next())
        qFatal("no block with %d logs in %s", minLogs, qPrintable(env));
    return q.value(0).toULongLong();
}

void TestVerify::storeRows(const char* name,
                           const std::function<void(QTestData& row, const QString& db)>& fill) const
{
    for (const QString& db : {m_lab->dbPath(), m_cluster.url()})
        fill(QTest::addRow("%s, %s", isPg(db) ? "postgresql" : "sqlite", name), db);
}

void TestVerify::indexOn(const QString& db, const QString& env, const QStringList& extra)
{
    VERIFY_EXIT_OK(runForkscope(commandOn(
        "index", db, env, QStringList{"--exit-when-synced"} + m_lab->contractArgs() + extra)));
}

QString TestVerify::textOn(const QString& db, const QString& sql, const QVariantList& args)
{
    test::Backend b(db);
    const auto q = b.open().query(sql, args);
    return q->next() ? q->value(0).toString() : QString();
}

void TestVerify::execOn(const QString& db, const QString& sql)
{
    if (isPg(db))
        store::pg::PgConnection::open(db)->exec(sql.toUtf8().constData());
    else
        exec(sql);
}

QString TestVerify::stateOn(const QString& db, const QString& env)
{
    if (!isPg(db))
        return m_lab->dump();
    test::Backend b(db);
    return stateOf(b, env).join('\n');
}

// ---- rules -----------------------------------------------------------------------------

void TestVerify::rangeRule_data()
{
    QTest::addColumn<qint64>("from"); // -1: not given
    QTest::addColumn<qint64>("to");
    QTest::addColumn<quint64>("wantFrom");
    QTest::addColumn<quint64>("wantTo");
    QTest::addColumn<QString>("error"); // a part of it; empty: accepted
    // The checkpoint covers 10..50.
    QTest::newRow("defaults") << -1LL << -1LL << 10ULL << 50ULL << "";
    QTest::newRow("one block") << 20LL << 20LL << 20ULL << 20ULL << "";
    QTest::newRow("from only") << 30LL << -1LL << 30ULL << 50ULL << "";
    QTest::newRow("to only") << -1LL << 12LL << 10ULL << 12ULL << "";
    QTest::newRow("the whole range") << 10LL << 50LL << 10ULL << 50ULL << "";
    QTest::newRow("from below the start") << 9LL << -1LL << 0ULL << 0ULL << "below the start block";
    QTest::newRow("from above the checkpoint")
        << 51LL << -1LL << 0ULL << 0ULL << "--from 51 is above the checkpoint 50";
    QTest::newRow("to above the checkpoint")
        << -1LL << 51LL << 0ULL << 0ULL << "--to 51 is above the checkpoint 50";
    QTest::newRow("to below the start") << -1LL << 9LL << 0ULL << 0ULL << "--to 9 is below";
    QTest::newRow("from above to") << 40LL << 30LL << 0ULL << 0ULL << "--from 40 is above --to 30";
}

void TestVerify::rangeRule()
{
    QFETCH(qint64, from);
    QFETCH(qint64, to);
    QFETCH(quint64, wantFrom);
    QFETCH(quint64, wantTo);
    QFETCH(QString, error);
    audit::AuditRange range;
    const QString got = audit::checkRange(
        10, 50, from < 0 ? std::nullopt : std::optional<std::uint64_t>(std::uint64_t(from)),
        to < 0 ? std::nullopt : std::optional<std::uint64_t>(std::uint64_t(to)), &range);
    if (error.isEmpty()) {
        QVERIFY2(got.isEmpty(), qPrintable(got));
        QCOMPARE(range.from, wantFrom);
        QCOMPARE(range.to, wantTo);
    } else {
        QVERIFY2(got.contains(error), qPrintable(got));
    }
}

void TestVerify::blockComparison_data()
{
    QTest::addColumn<Indexes>("storedLogs");
    QTest::addColumn<Indexes>("storedTransfers");
    QTest::addColumn<Indexes>("nodeLogs");
    QTest::addColumn<Indexes>("nodeTransfers");
    QTest::addColumn<bool>("differs");
    QTest::addColumn<QString>("described"); // block 7: ...
    QTest::newRow("equal") << Indexes{0, 1, 2} << Indexes{0, 1} << Indexes{2, 1, 0} << Indexes{1, 0}
                           << false << "";
    QTest::newRow("both empty") << Indexes{} << Indexes{} << Indexes{} << Indexes{} << false << "";
    QTest::newRow("two missing") << Indexes{0, 3} << Indexes{0, 3} << Indexes{0, 1, 2, 3}
                                 << Indexes{0, 1, 2, 3} << true
                                 << "block 7: missing 2 logs (log index 1, 2), missing 2 transfers";
    QTest::newRow("all missing") << Indexes{} << Indexes{} << Indexes{4} << Indexes{} << true
                                 << "block 7: missing 1 log (log index 4)";
    QTest::newRow("one extra") << Indexes{0, 9} << Indexes{} << Indexes{0} << Indexes{} << true
                               << "block 7: extra 1 log the node does not have (log index 9)";
    QTest::newRow("same count, other rows")
        << Indexes{0, 5} << Indexes{} << Indexes{0, 1} << Indexes{} << true
        << "block 7: missing 1 log (log index 1), extra 1 log the node does not have (log index "
           "5)";
    QTest::newRow("a transfer row lost") << Indexes{0, 1} << Indexes{0} << Indexes{0, 1}
                                         << Indexes{0, 1} << true << "block 7: missing 1 transfer";
    QTest::newRow("a transfer row forged")
        << Indexes{0} << Indexes{0, 1} << Indexes{0} << Indexes{0} << true
        << "block 7: extra 1 transfer without a Transfer log on the node";
    QTest::newRow("many missing, the first eight named")
        << Indexes{} << Indexes{} << Indexes{0, 1, 2, 3, 4, 5, 6, 7, 8, 9} << Indexes{} << true
        << "block 7: missing 10 logs (log index 0, 1, 2, 3, 4, 5, 6, 7, ...)";
}

void TestVerify::blockComparison()
{
    QFETCH(Indexes, storedLogs);
    QFETCH(Indexes, storedTransfers);
    QFETCH(Indexes, nodeLogs);
    QFETCH(Indexes, nodeTransfers);
    QFETCH(bool, differs);
    QFETCH(QString, described);
    audit::AuditHole hole;
    hole.block = 7;
    QCOMPARE(audit::compareBlock({storedLogs, storedTransfers}, {nodeLogs, nodeTransfers}, &hole),
             differs);
    if (differs)
        QCOMPARE(hole.describe(), described);
}

void TestVerify::policyConfirmations()
{
    QCOMPARE(audit::confirmationsOf("follow-head/confirmations=0"), std::optional<quint64>(0));
    QCOMPARE(audit::confirmationsOf("follow-head/confirmations=12"), std::optional<quint64>(12));
    QCOMPARE(audit::confirmationsOf("follow-head/confirmations=-1"), std::nullopt);
    QCOMPARE(audit::confirmationsOf("follow-head/confirmations="), std::nullopt);
    QCOMPARE(audit::confirmationsOf("finalized"), std::nullopt);
}

using OptHash = std::optional<forkscope::chain::Hash32>;
using OptText = std::optional<QString>;
using OptBlock = std::optional<forkscope::audit::StoredBlock>;
Q_DECLARE_METATYPE(OptHash)
Q_DECLARE_METATYPE(OptText)
Q_DECLARE_METATYPE(OptBlock)
Q_DECLARE_METATYPE(forkscope::audit::HashMismatch)

namespace {
chain::Hash32 hashOf(char c)
{
    return chain::Hash32::fromBytes(QByteArray(32, c), QStringLiteral("test hash"));
}
} // namespace

void TestVerify::hashMismatch_data()
{
    // Block N is stored with another hash than the node's `n`; `n1` is the node's N + 1.
    QTest::addColumn<OptBlock>("storedAbove"); // the stored N + 1
    QTest::addColumn<OptHash>("nodeAbove");
    QTest::addColumn<OptText>("checkpointHash"); // when N is the checkpoint
    QTest::addColumn<audit::HashMismatch>("verdict");
    const chain::Hash32 n = hashOf('\x01');
    const chain::Hash32 n1 = hashOf('\x02');
    const chain::Hash32 other = hashOf('\x03');
    using M = audit::HashMismatch;
    QTest::newRow("the row above links to the node's block: edited")
        << OptBlock(audit::StoredBlock{n1.toHex(), n.toHex(), 0}) << OptHash(n1) << OptText()
        << M::RowEdited;
    QTest::newRow("the row above links to the stored block: reorged")
        << OptBlock(audit::StoredBlock{n1.toHex(), other.toHex(), 0}) << OptHash(n1) << OptText()
        << M::Reorged;
    QTest::newRow("the row above is not the node's either: reorged")
        << OptBlock(audit::StoredBlock{other.toHex(), n.toHex(), 0}) << OptHash(n1) << OptText()
        << M::Reorged;
    QTest::newRow("the node has no block above: reorged")
        << OptBlock(audit::StoredBlock{n1.toHex(), n.toHex(), 0}) << OptHash() << OptText()
        << M::Reorged;
    QTest::newRow("the checkpoint holds the node's hash: edited")
        << OptBlock() << OptHash() << OptText(n.toHex()) << M::RowEdited;
    QTest::newRow("the checkpoint holds the stored hash: reorged")
        << OptBlock() << OptHash() << OptText(other.toHex()) << M::Reorged;
    QTest::newRow("nothing above to tell: reorged")
        << OptBlock() << OptHash() << OptText() << M::Reorged;
}

void TestVerify::hashMismatch()
{
    QFETCH(OptBlock, storedAbove);
    QFETCH(OptHash, nodeAbove);
    QFETCH(OptText, checkpointHash);
    QFETCH(audit::HashMismatch, verdict);
    QCOMPARE(audit::classifyHashMismatch(hashOf('\x01'), storedAbove, nodeAbove, checkpointHash),
             verdict);
}

void TestVerify::transferColumns_data()
{
    QTest::addColumn<QStringList>("stored"); // contract, from, to, value
    QTest::addColumn<bool>("transfer");      // the log is an ERC-20 Transfer
    QTest::addColumn<QStringList>("differs");
    QTest::addColumn<QString>("detail");
    const QString c = "0x00000000000000000000000000000000000000cc";
    const QString a = "0x00000000000000000000000000000000000000aa";
    const QString b = "0x00000000000000000000000000000000000000bb";
    QTest::newRow("the log's") << QStringList{c, a, b, "1000"} << true << QStringList{}
                               << QString();
    QTest::newRow("value") << QStringList{c, a, b, "12345"} << true << QStringList{"value"}
                           << "stored value 12345, the log's 1000";
    QTest::newRow("a value that is no number")
        << QStringList{c, a, b, "10a0"} << true << QStringList{"value"}
        << "stored value 10a0, the log's 1000";
    QTest::newRow("from") << QStringList{c, b, b, "1000"} << true << QStringList{"from"}
                          << QString();
    QTest::newRow("to") << QStringList{c, a, a, "1000"} << true << QStringList{"to"} << QString();
    QTest::newRow("contract and value")
        << QStringList{a, a, b, "1"} << true << QStringList{"contract", "value"}
        << "stored value 1, the log's 1000";
    QTest::newRow("uppercase hex is not the surface's")
        << QStringList{c.toUpper().replace("0X", "0x"), a, b, "1000"} << true
        << QStringList{"contract"} << QString();
    QTest::newRow("no Transfer: nothing to compare")
        << QStringList{c, a, b, "5"} << false << QStringList{} << QString();
}

void TestVerify::transferColumns()
{
    QFETCH(QStringList, stored);
    QFETCH(bool, transfer);
    QFETCH(QStringList, differs);
    QFETCH(QString, detail);
    chain::LogEntry log;
    log.address = chain::Address::fromHex("0x00000000000000000000000000000000000000cc", "a");
    const auto word = [](const QString& address) {
        return chain::Hash32::fromBytes(
            QByteArray(12, '\0') + chain::Address::fromHex(address, "a").toByteArray(), "topic");
    };
    log.topics = {indexer::transferTopic(), word("0x00000000000000000000000000000000000000aa"),
                  word("0x00000000000000000000000000000000000000bb")};
    if (!transfer)
        log.topics.append(hashOf('\x07')); // four topics: ERC-721's Transfer
    log.data = chain::u256::toBigEndian32(chain::U256(1000));
    QString got;
    QCOMPARE(
        audit::differingTransferFields({stored[0], stored[1], stored[2], stored[3]}, log, &got),
        differs);
    QCOMPARE(got, detail);
}

// ---- commands ----------------------------------------------------------------------------

void TestVerify::cleanDatabaseVerifies()
{
    const QString before = m_lab->dump();
    const ProcessRun run = runForkscope(verifyArgs("clean"));
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    const qint64 checkpoint =
        count("SELECT block_number FROM indexer_checkpoints WHERE environment_id = 'clean'");
    const qint64 logs = count("SELECT count(*) FROM logs WHERE environment_id = 'clean'");
    const qint64 blocksWithLogs =
        count("SELECT count(DISTINCT block_number) FROM logs WHERE environment_id = 'clean'");
    QCOMPARE(logs, 2 + 40 * 2 * 5); // the two mints, 40 blocks of 2 x 5 Transfers
    for (const QString& expected :
         {QStringLiteral("verify: environment clean (chain 31337), blocks 0..%1").arg(checkpoint),
          QStringLiteral("checked: %1 blocks").arg(checkpoint + 1),
          QStringLiteral("%1 stored logs against their blocks' logsBloom").arg(logs),
          QStringLiteral("%1 on the node, %1 stored, in %2 blocks").arg(logs).arg(blocksWithLogs),
          QStringLiteral("%1 stored transfers").arg(logs), QStringLiteral("verdict: clean")})
        QVERIFY2(run.out.contains(expected), qPrintable(expected + "\n" + run.out));
    QVERIFY(!run.out.contains("HOLE"));
    QCOMPARE(m_lab->dump(), before);

    // A part of the range, too.
    const ProcessRun part = runForkscope(verifyArgs("clean", {"--from", "10", "--to", "19"}));
    VERIFY_EXIT_OK(part);
    QVERIFY2(part.out.contains("blocks 10..19") && part.out.contains("checked: 10 blocks"),
             qPrintable(part.out));
}

void TestVerify::holesAreFoundAndRepaired_data()
{
    QTest::addColumn<QString>("env");
    QTest::addColumn<QStringList>("punch"); // SQL with %1 = a block of 10 logs, %2 = a later one
    QTest::addColumn<QStringList>("found"); // lines verify must print
    QTest::newRow("some logs and transfers of one block")
        << "some"
        << QStringList{"DELETE FROM logs WHERE environment_id = 'some' AND block_number = %1 AND "
                       "log_index IN (1, 2)",
                       "DELETE FROM transfer_events WHERE environment_id = 'some' AND "
                       "block_number = %1 AND log_index IN (1, 2)"}
        << QStringList{"HOLE block %1: missing 2 logs (log index 1, 2), missing 2 transfers"};
    QTest::newRow("every log of a block")
        << "every"
        << QStringList{"DELETE FROM logs WHERE environment_id = 'every' AND block_number = %1",
                       "DELETE FROM transfer_events WHERE environment_id = 'every' AND "
                       "block_number = %1"}
        << QStringList{"HOLE block %1: missing 10 logs (log index 0, 1, 2, 3, 4, 5, 6, 7, ...), "
                       "missing 10 transfers"};
    QTest::newRow("a whole block's rows but its block row")
        << "whole"
        << QStringList{"DELETE FROM logs WHERE environment_id = 'whole' AND block_number = %1",
                       "DELETE FROM transfer_events WHERE environment_id = 'whole' AND "
                       "block_number = %1",
                       "DELETE FROM outbox WHERE environment_id = 'whole' AND block_number = %1"}
        << QStringList{"HOLE block %1: missing 10 logs (log index 0, 1, 2, 3, 4, 5, 6, 7, ...), "
                       "missing 10 transfers"};
    QTest::newRow("holes in two blocks, a block row and a forged log")
        << "two"
        << QStringList{"DELETE FROM logs WHERE environment_id = 'two' AND block_number = %1 AND "
                       "log_index = 3",
                       "DELETE FROM blocks WHERE environment_id = 'two' AND block_number = %2",
                       "UPDATE log_store SET topic2 = "
                       "X'000000000000000000000000000000000000000000000000000000000000dead' "
                       "WHERE environment_id = 'two' AND block_number = %2 AND log_index = 4"}
        << QStringList{"HOLE block %1: missing 1 log (log index 3), missing 1 transfer",
                       "HOLE block %2: no blocks row, 1 stored log outside the block's logsBloom "
                       "(corrupt or tampered rows), 1 stored log altered (log index 4): topics "
                       "not the node's, 1 transfer altered (log index 4): to not what the node's "
                       "log says"};
    QTest::newRow("a log's data edited in place")
        << "edited"
        << QStringList{"UPDATE log_store SET data = "
                       "X'00000000000000000000000000000000000000000000000000000000000f4240' "
                       "WHERE environment_id = 'edited' AND block_number = %1 AND log_index = 2"}
        << QStringList{"HOLE block %1: 1 stored log altered (log index 2): data not the node's"};
}

void TestVerify::holesAreFoundAndRepaired()
{
    QFETCH(QString, env);
    QFETCH(QStringList, punch);
    QFETCH(QStringList, found);
    VERIFY_EXIT_OK(m_lab->runIndex(env, {"--exit-when-synced"}));
    QVERIFY(m_lab->verify(env).isEmpty());
    const std::uint64_t bad = blockWithLogs(env, 10, 3);
    const std::uint64_t later = blockWithLogs(env, 10, 12);
    // (QString::arg would fill the lowest placeholder present, so %2 alone would get `bad`.)
    const auto fill = [&](QString text) {
        return text.replace("%1", QString::number(bad)).replace("%2", QString::number(later));
    };
    for (const QString& sql : punch)
        exec(fill(sql));

    // Found: exit 1, each hole named on its line, nothing written.
    const QString punched = m_lab->dump();
    const ProcessRun run = runForkscope(verifyArgs(env));
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    for (const QString& line : found)
        QVERIFY2(run.out.contains(fill(line) + "\n"), qPrintable(fill(line) + "\n" + run.out));
    QCOMPARE(run.out.count("HOLE "), found.size());
    QVERIFY2(run.out.contains(QStringLiteral("run `forkscope repair --db %1 --env %2 --rpc %3 "
                                             "--from %4`")
                                  .arg(m_lab->dbPath(), env, rpcUrl())
                                  .arg(bad)),
             qPrintable(run.out));
    QCOMPARE(run.err.trimmed().count('\n'), 0);
    QVERIFY2(run.err.contains(QStringLiteral("first at block %1").arg(bad)), qPrintable(run.err));
    QCOMPARE(m_lab->dump(), punched);
    // The receipts proof finds the same holes.
    const ProcessRun proven = runForkscope(verifyArgs(env, {"--receipts"}));
    QVERIFY2(proven.finished && proven.exitCode == 1, qPrintable(proven.describe()));
    for (const QString& line : found)
        QVERIFY2(proven.out.contains(fill(line) + "\n"),
                 qPrintable(fill(line) + "\n" + proven.out));
    QCOMPARE(proven.out.count("HOLE "), found.size());
    QCOMPARE(m_lab->dump(), punched);

    // Repaired from the first bad block.
    const qint64 checkpoint = count(
        QStringLiteral("SELECT block_number FROM indexer_checkpoints WHERE environment_id = '%1'")
            .arg(env));
    const ProcessRun repair = runForkscope(repairArgs(env, {"--from", QString::number(bad)}));
    VERIFY_EXIT_OK(repair);
    QVERIFY2(repair.out.contains(
                 QStringLiteral("rolled back to block %1 in one transaction").arg(bad - 1)) &&
                 repair.out.contains("reason repair") && repair.out.contains("indexed again:") &&
                 repair.out.contains(QStringLiteral("synced: checkpoint %1").arg(checkpoint)),
             qPrintable(repair.out));
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = '%1'")
                       .arg(env)),
             1);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = '%1' "
                                  "AND reason = 'repair' AND fork_block_number = %2 AND "
                                  "old_block_number = %3")
                       .arg(env)
                       .arg(bad - 1)
                       .arg(checkpoint)),
             1);
    QVERIFY(count(QStringLiteral("SELECT count(*) FROM reorg_diff_items WHERE environment_id = "
                                 "'%1' AND kind = 'transfer_removed'")
                      .arg(env)) > 0);

    // Clean again, and the invariants (with an independent balance sum) hold.
    const ProcessRun again = runForkscope(verifyArgs(env));
    VERIFY_EXIT_OK(again);
    QVERIFY2(again.out.contains("verdict: clean"), qPrintable(again.out));
    const QStringList problems = m_lab->verify(env);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TestVerify::bloomFalsePositiveIsCountedNotAHole()
{
    // An address whose three bloom bits the other token's busy block sets, although it has
    // no log there (nor anywhere): searched deterministically among small addresses.
    const auto busy = m_lab->eth().blockByNumber(m_busyOtherBlock);
    QVERIFY(busy);
    std::optional<chain::Address> lookalike;
    for (int i = 1; i < 1000000 && !lookalike; ++i) {
        const auto a =
            chain::Address::fromHex(QStringLiteral("0x%1").arg(i, 40, 16, QChar('0')), "candidate");
        if (chain::bloom::mayContain(busy->logsBloom, a.toByteArray()))
            lookalike = a;
    }
    QVERIFY(lookalike);
    VERIFY_EXIT_OK(
        m_lab->runIndex("lookalike", {"--contract", lookalike->toHex(), "--exit-when-synced"}));

    // What to expect, computed here: blocks with no log of the set whose bloom admits one.
    QList<chain::Address> set = m_lab->contracts();
    set << *lookalike;
    const qint64 checkpoint =
        count("SELECT block_number FROM indexer_checkpoints WHERE environment_id = 'lookalike'");
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = std::uint64_t(checkpoint);
    f.addresses = set;
    QSet<std::uint64_t> withLogs;
    for (const auto& log : m_lab->eth().getLogs(f))
        withLogs.insert(log.blockNumber);
    qint64 falsePositives = 0;
    bool busyCounted = false;
    for (std::uint64_t n = 0; n <= std::uint64_t(checkpoint); ++n) {
        const auto h = m_lab->eth().blockByNumber(n);
        QVERIFY(h);
        bool admits = false;
        for (const auto& a : set)
            admits = admits || chain::bloom::mayContain(h->logsBloom, a.toByteArray());
        if (admits && !withLogs.contains(n)) {
            ++falsePositives;
            busyCounted = busyCounted || n == m_busyOtherBlock;
        }
    }
    QVERIFY(busyCounted);

    const ProcessRun run = runForkscope(verifyArgs("lookalike"));
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains(QStringLiteral("blooms admitting a contract with no stored log of "
                                             "it: %1, of which %1 bloom false %2")
                                  .arg(falsePositives)
                                  .arg(falsePositives == 1 ? "positive" : "positives")),
             qPrintable(QString::number(falsePositives) + "\n" + run.out));
    QVERIFY2(run.out.contains("verdict: clean") && !run.out.contains("HOLE"), qPrintable(run.out));
}

void TestVerify::aNodeThatTruncatesOrDropsCondemnsNoStoredRow()
{
    const QString before = m_lab->dump();
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    QStringList args = verifyArgs("clean");
    args[args.indexOf("--rpc") + 1] = proxy.url().toString();

    // A silent cap of 15 logs cuts the range answer; each block asked by hash (10 logs of
    // ours) comes back whole with the header's bloom, so the stored rows stand.
    proxy.setLogCap(15, lab::FaultProxy::CapMode::Silent);
    const ProcessRun capped = runForkscope(args);
    VERIFY_EXIT_OK(capped);
    QVERIFY2(capped.out.contains("verdict: clean"), qPrintable(capped.out));
    QVERIFY2(!capped.out.contains(" 0 by blockHash"), qPrintable(capped.out));

    // An announced limit of 15 logs splits the range until each part fits: more calls than
    // without it, each part of at most one block (10 logs of ours).
    const auto rangeCalls = [](const QString& out) {
        static const QRegularExpression calls(QStringLiteral("\\((\\d+) eth_getLogs range call"));
        return calls.match(out).captured(1).toLongLong();
    };
    proxy.setLogCap(0, lab::FaultProxy::CapMode::Silent);
    const ProcessRun unlimited = runForkscope(args);
    VERIFY_EXIT_OK(unlimited);
    proxy.setLogCap(15, lab::FaultProxy::CapMode::Announced);
    const ProcessRun announced = runForkscope(args);
    VERIFY_EXIT_OK(announced);
    QVERIFY2(announced.out.contains("verdict: clean") &&
                 rangeCalls(announced.out) > rangeCalls(unlimited.out) &&
                 rangeCalls(unlimited.out) > 0,
             qPrintable(unlimited.out + "\n" + announced.out));

    // A node that answers every eth_getLogs with nothing cannot prove that: it is named, and
    // no stored row is called extra.
    proxy.setLogCap(0, lab::FaultProxy::CapMode::Silent);
    proxy.setDropLogs(true);
    const ProcessRun dropped = runForkscope(args);
    VERIFY_ONE_ERROR_LINE(dropped, 1,
                          (QStringList{QStringLiteral("node %1 hides logs of block 1")
                                           .arg(proxy.url().toString(QUrl::RemoveUserInfo)),
                                       "not the header's logsBloom", "nothing was concluded"}));
    QVERIFY2(!dropped.out.contains("HOLE"), qPrintable(dropped.out));
    QCOMPARE(m_lab->dump(), before);
}

void TestVerify::aLyingNodeIsNamedNotTrusted_data()
{
    QTest::addColumn<lab::ProxyLie>("lie");
    QTest::addColumn<QString>("named");
    QTest::newRow("a log nobody asked for")
        << lab::ProxyLie::ForeignLog << QString("which was not requested");
    QTest::newRow("a log past the range")
        << lab::ProxyLie::OutOfRangeLog
        << QString(") with a log of block "); // past the part of 0..44 it answered
    QTest::newRow("logs of another branch")
        << lab::ProxyLie::WrongLogHash << QString("but the block's header is");
    QTest::newRow("headers that do not link")
        << lab::ProxyLie::UnlinkedHeaders << QString("headers that do not link");
}

void TestVerify::aLyingNodeIsNamedNotTrusted()
{
    QFETCH(lab::ProxyLie, lie);
    QFETCH(QString, named);
    QCOMPARE(count("SELECT block_number FROM indexer_checkpoints WHERE environment_id = 'clean'"),
             44); // the ranges named above
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLie(lie);
    QStringList args = verifyArgs("clean");
    args[args.indexOf("--rpc") + 1] = proxy.url().toString();
    const QString before = m_lab->dump();
    const ProcessRun run = runForkscope(args);
    VERIFY_ONE_ERROR_LINE(run, 1,
                          (QStringList{"verify: node " + proxy.url().toString(), named,
                                       "it cannot serve as the reference, nothing was concluded"}));
    QVERIFY2(!run.out.contains("HOLE") && !run.out.contains("verdict"), qPrintable(run.out));
    QCOMPARE(m_lab->dump(), before);
}

void TestVerify::aHoleTheRangeAnswerAlsoOmitsIsFoundByTheBloom()
{
    VERIFY_EXIT_OK(m_lab->runIndex("bloomhole", {"--exit-when-synced"}));
    // The last block of ours: a range answer capped at 15 logs (the chunk's, or its last
    // part's, of several blocks of 10) never reaches it.
    const std::uint64_t bad =
        blockWithLogs("bloomhole", 10,
                      int(count("SELECT count(*) FROM (SELECT block_number FROM logs WHERE "
                                "environment_id = 'bloomhole' GROUP BY block_number HAVING "
                                "count(*) >= 10)")) -
                          1);
    for (const char* table : {"logs", "transfer_events"})
        exec(QStringLiteral("DELETE FROM %1 WHERE environment_id = 'bloomhole' AND block_number "
                            "= %2")
                 .arg(QLatin1String(table))
                 .arg(bad));
    // A node whose range answers stop after 15 logs: the counts alone would see nothing
    // missing at `bad`; its bloom admits our contracts, so the block is fetched by hash.
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLogCap(15, lab::FaultProxy::CapMode::Silent);
    QStringList args = verifyArgs("bloomhole");
    args[args.indexOf("--rpc") + 1] = proxy.url().toString();
    const ProcessRun run = runForkscope(args);
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QVERIFY2(run.out.contains(QStringLiteral("HOLE block %1: missing 10 logs (log index 0, 1, 2, "
                                             "3, 4, 5, 6, 7, ...), missing 10 transfers (the "
                                             "node's eth_getLogs range answer omitted them too; "
                                             "the block's proven logs have them)\n")
                                  .arg(bad)),
             qPrintable(run.out));
    QVERIFY2(run.out.contains("blooms admitting a contract with no stored log of it: 1, of which 0 "
                              "bloom false positives (none of the block's logs is ours) and 1 "
                              "with logs of ours"),
             qPrintable(run.out));
    QCOMPARE(run.out.count("HOLE "), 1);
}

void TestVerify::aPluggedProofIsWhatBlocksAreComparedWith()
{
    store::Database::Options ro;
    ro.readOnly = true;
    auto db = store::Database::open(m_lab->dbPath(), ro);
    store::SqliteContractReader reader(*db);
    const auto target = audit::AuditTarget::load(reader, "clean");
    audit::AuditRange range;
    QVERIFY(target.resolveRange(std::nullopt, std::nullopt, &range).isEmpty());
    audit::StoredDataAuditor auditor(reader, m_lab->eth());

    ByHashProof truthful(m_lab->eth(), std::nullopt);
    auditor.setProof(&truthful);
    const audit::AuditResult clean = auditor.audit(target, range);
    QVERIFY(clean.clean());
    QCOMPARE(clean.proofName, QStringLiteral("by-hash test"));
    QCOMPARE(clean.provenBlocks, clean.blocksWithLogs + clean.bloomSuspects);
    QCOMPARE(clean.byHashFetches, 0); // the proof replaces the by-hash fetches

    // The proof says a stored log is not in its block: the stored row is extra, although
    // eth_getLogs has it.
    const std::uint64_t block = blockWithLogs("clean", 10, 2);
    const auto first = std::uint64_t(
        count(QStringLiteral("SELECT min(log_index) FROM logs WHERE environment_id = 'clean' AND "
                             "block_number = %1")
                  .arg(block)));
    ByHashProof omitting(m_lab->eth(), std::pair{block, first});
    auditor.setProof(&omitting);
    const audit::AuditResult r = auditor.audit(target, range);
    QCOMPARE(r.holeCount, 1);
    QCOMPARE(r.holes.first().block, block);
    QCOMPARE(r.holes.first().extraLogs, 1);
    QCOMPARE(r.holes.first().extraLogIndexes, Indexes{first});
}

// ---- every column derived from the node, on both stores ----------------------------------

void TestVerify::aCleanDatabaseHasNoFinding_data()
{
    QTest::addColumn<QString>("db");
    storeRows("decoded with an ABI", [](QTestData& r, const QString& db) { r << db; });
}

void TestVerify::aCleanDatabaseHasNoFinding()
{
    QFETCH(QString, db);
    const QString env = "spotless";
    indexOn(db, env, {"--abi", kDemoAbi});
    const auto countOf = [&](const char* table) {
        return textOn(db,
                      QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ?")
                          .arg(QLatin1String(table)),
                      {env});
    };
    const QString transfers = countOf("transfer_events");
    const QString logs = countOf("logs");
    const QString balances = countOf("token_balances");
    test::Backend b(db);
    const qint64 cp = checkpointOf(b.open(), env);
    b.close();
    QVERIFY(transfers.toLongLong() > 400 && balances.toLongLong() > 10);

    const ProcessRun run =
        runForkscope(commandOn("verify", db, env, {"--abi", kDemoAbi, "--balance-of"}));
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.err.isEmpty(), qPrintable(run.err));
    for (const QString& line :
         {QStringLiteral("checked: %1 stored transfers' contract, parties and value against their "
                         "logs; %2 stored logs' event_name and args_json against their logs "
                         "decoded with --abi\n")
              .arg(transfers, logs),
          QStringLiteral("checked: %1 token_balances rows against the sums of the %2 stored "
                         "transfers of blocks 0..%3, and %1 against the token's balanceOf at the "
                         "checkpoint\n")
              .arg(balances, transfers)
              .arg(cp),
          QStringLiteral("verdict: clean")})
        QVERIFY2(run.out.contains(line), qPrintable(line + "\n" + run.out));
    QVERIFY2(!run.out.contains("HOLE") && !run.out.contains("BALANCE"), qPrintable(run.out));

    // Without the ABI the decoded columns are named as not checked, not called clean.
    const ProcessRun plain = runForkscope(commandOn("verify", db, env));
    VERIFY_EXIT_OK(plain);
    QVERIFY2(plain.out.contains("not checked: event_name and args_json of the ABI-decoded logs "
                                "(pass --abi FILE"),
             qPrintable(plain.out));

    // Pages of 3 rows, and a range inside the checkpoint (the Transfers outside it summed as
    // stored): every row is read once, no more, no less.
    store::ContractReader& reader = b.open();
    const audit::AuditTarget target = audit::AuditTarget::load(reader, env);
    for (const auto& [from, to] : {std::pair<qint64, qint64>{0, cp}, {20, 30}}) {
        audit::AuditRange range;
        QVERIFY(target.resolveRange(std::uint64_t(from), std::uint64_t(to), &range).isEmpty());
        audit::StoredDataAuditor auditor(reader, m_lab->eth());
        auditor.setRowsPerPage(3);
        auditor.setBalanceOf(true);
        const audit::AuditResult r = auditor.audit(target, range);
        QVERIFY2(r.clean(), qPrintable(QStringLiteral("%1 holes, %2 balances")
                                           .arg(r.holeCount)
                                           .arg(r.balanceFindingCount)));
        QCOMPARE(r.transfersSummed, transfers.toLongLong());
        QCOMPARE(r.balancesChecked, balances.toLongLong());
        QCOMPARE(r.balanceOfCalls, balances.toLongLong());
    }
    b.close();
}

void TestVerify::tampersAreFoundAndTheAdviceFixesThem_data()
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("env");
    // SQL with %env, %block (a block of 10 logs, or the checkpoint with `atCheckpoint`).
    QTest::addColumn<QStringList>("tamper");
    QTest::addColumn<bool>("atCheckpoint");
    // Lines (or their start) verify prints; %block, %cp, %token and %holder (the contract
    // and the recipient of log 2 of the block) filled in.
    QTest::addColumn<QStringList>("found");
    QTest::addColumn<int>("holes");
    QTest::addColumn<int>("balances"); // BALANCE lines
    QTest::addColumn<bool>("abi");
    QTest::addColumn<bool>("fromCheckpoint"); // the advice: repair from the checkpoint
    const QString log = "WHERE environment_id = '%env' AND block_number = %block AND log_index = 2";
    const auto bytes = [](const QString& db, const QString& hex) {
        return isPg(db) ? QStringLiteral("decode('%1', 'hex')").arg(hex)
                        : QStringLiteral("X'%1'").arg(hex);
    };
    const QString dead = QString(60, '0') + "dead";
    const QString edited = "HOLE block %block: ";
    // Balances are stored on both stores: a Transfer edited makes two of them wrong (its
    // parties').
    const auto wrongBalances = [](const QString&, int n) { return n; };

    storeRows("transfer value", [&](QTestData& r, const QString& db) {
        r << db << "t-value"
          << QStringList{QStringLiteral("UPDATE log_store SET transfer_value "
                                        "= %1 ")
                             .arg(isPg(db) ? "12345" : "'12345'") +
                         log}
          << false
          << QStringList{edited + "1 transfer altered (log index 2): value "
                                  "not what the node's log says (stored "
                                  "value 12345, the log's "}
          << 1 << wrongBalances(db, 2) << false << false;
    });
    // A byte of the file flipped inside a value: no longer a number.
    QTest::newRow("sqlite, a transfer value corrupted")
        << m_lab->dbPath() << "t-corrupt"
        << QStringList{"UPDATE log_store SET transfer_value = transfer_value || 'x' " + log}
        << false
        << QStringList{edited + "1 transfer altered (log index 2): value not what the node's log "
                                "says (stored value ",
                       "holder %holder: a stored Transfer of it has a value that is not a "
                       "decimal amount; its balance "}
        << 1 << 2 << false << false;
    storeRows("transfer from", [&](QTestData& r, const QString& db) {
        r << db << "t-from"
          << QStringList{QStringLiteral("UPDATE log_store SET topic1 = %1 ").arg(bytes(db, dead)) +
                         log}
          << false
          << QStringList{"1 stored log altered (log index 2): topics not the node's, 1 transfer "
                         "altered (log index 2): from not what the node's log says\n"}
          << 1 << wrongBalances(db, 2) << false << false;
    });
    storeRows("transfer to", [&](QTestData& r, const QString& db) {
        r << db << "t-to"
          << QStringList{QStringLiteral("UPDATE log_store SET topic2 = %1 ").arg(bytes(db, dead)) +
                         log}
          << false
          << QStringList{"1 stored log altered (log index 2): topics not the node's, 1 transfer "
                         "altered (log index 2): to not what the node's log says\n"}
          << 1 << wrongBalances(db, 2) << false << false;
    });
    storeRows("an args_json field", [&](QTestData& r, const QString& db) {
        // The value inside the decoded arguments, the Transfer's own value column untouched.
        const QString args = isPg(db) ? QStringLiteral("args_json")
                                      : QStringLiteral("(SELECT args_json FROM logs ") + log + ")";
        r << db << "t-args"
          << QStringList{QStringLiteral("UPDATE log_store SET args_json = replace(%1, "
                                        "'\"value\":\"', '\"value\":\"9') ")
                             .arg(args) +
                         log}
          << false
          << QStringList{edited + "1 decoded log altered (log index 2): args_json not the "
                                  "node's log decoded with the ABI\n"}
          << 1 << 0 << true << false;
    });
    storeRows("a block hash", [&](QTestData& r, const QString& db) {
        r << db << "t-hash"
          << QStringList{QStringLiteral("UPDATE block_store SET block_hash = %1 WHERE "
                                        "environment_id = '%env' AND block_number = %block")
                             .arg(bytes(db, QString(64, '1')))}
          << false
          << QStringList{edited + "blocks row altered: block_hash not the node's header's (the "
                                  "stored chain above it links to the node's block %block: "
                                  "this row was edited, the chain did not reorg)\n"}
          << 1 << 0 << false << false;
    });
    storeRows("a block timestamp", [&](QTestData& r, const QString& db) {
        r << db << "t-time"
          << QStringList{"UPDATE block_store SET block_timestamp = block_timestamp + 1 WHERE "
                         "environment_id = '%env' AND block_number = %block"}
          << false
          << QStringList{edited + "blocks row altered: block_timestamp not the node's header's\n"}
          << 1 << 0 << false << false;
    });
    storeRows("the checkpoint's block hash", [&](QTestData& r, const QString& db) {
        r << db << "t-tip"
          << QStringList{QStringLiteral("UPDATE block_store SET block_hash = %1 WHERE "
                                        "environment_id = '%env' AND block_number = %block")
                             .arg(bytes(db, QString(64, '1')))}
          << true
          << QStringList{edited + "blocks row altered: block_hash not the node's header's (the "
                                  "stored chain above it links to the node's block %block: "
                                  "this row was edited, the chain did not reorg)\n"}
          << 1 << 0 << false << false;
    });
    // Stored balances: SQLite only (PostgreSQL's token_balances is a view of the Transfers,
    // with no row to delete or alter: the server refuses a DELETE on it).
    const QString db = m_lab->dbPath();
    const QString holder = "(SELECT substr(topic2, 13) FROM log_store " + log + ")";
    const QString token = "(SELECT address FROM log_store " + log + ")";
    QTest::newRow("sqlite, a balance deleted through the view")
        << db << "t-deleted"
        << QStringList{"DELETE FROM token_balances WHERE environment_id = '%env' AND contract = "
                       "'%token' AND holder = '%holder'"}
        << false
        << QStringList{"BALANCE at checkpoint %cp: token %token holder %holder: no "
                       "token_balances row, its stored Transfers sum to "}
        << 0 << 1 << false << true;
    QTest::newRow("sqlite, a balance altered in the table")
        << db << "t-altered"
        << QStringList{"UPDATE balance_store SET balance = '1' WHERE environment_id = '%env' AND "
                       "contract = " +
                       token + " AND holder = " + holder}
        << false
        << QStringList{"BALANCE at checkpoint %cp: token %token holder %holder: balance 1 "
                       "stored, its stored Transfers sum to "}
        << 0 << 1 << false << true;
    QTest::newRow("sqlite, a balance forged in the table")
        << db << "t-forged"
        << QStringList{"INSERT INTO balance_store VALUES ('%env', 31337, " + token + ", X'" +
                       QString(36, '0') + "beef', '5', 1, 1)"}
        << false
        << QStringList{"BALANCE at checkpoint %cp: token %token holder 0x" + QString(36, '0') +
                       "beef: token_balances row (balance 5) that no stored Transfer names: "}
        << 0 << 1 << false << true;
}

void TestVerify::tampersAreFoundAndTheAdviceFixesThem()
{
    QFETCH(QString, db);
    QFETCH(QString, env);
    QFETCH(QStringList, tamper);
    QFETCH(bool, atCheckpoint);
    QFETCH(QStringList, found);
    QFETCH(int, holes);
    QFETCH(int, balances);
    QFETCH(bool, abi);
    QFETCH(bool, fromCheckpoint);
    const QStringList abiArgs = abi ? QStringList{"--abi", kDemoAbi} : QStringList{};
    indexOn(db, env, abiArgs);
    VERIFY_EXIT_OK(runForkscope(commandOn("verify", db, env, abiArgs)));
    test::Backend b(db);
    const QString cp = QString::number(checkpointOf(b.open(), env));
    b.close();
    const QString block =
        atCheckpoint ? cp
                     : textOn(db,
                              "SELECT block_number FROM logs WHERE environment_id = ? GROUP BY "
                              "block_number HAVING count(*) >= 10 ORDER BY block_number LIMIT 1 "
                              "OFFSET 3",
                              {env});
    const auto ofLog2 = [&](const char* column) {
        return textOn(db,
                      QStringLiteral("SELECT %1 FROM transfer_events WHERE environment_id = ? AND "
                                     "block_number = ? AND log_index = 2")
                          .arg(QLatin1String(column)),
                      {env, block.toLongLong()});
    };
    const QString token = ofLog2("contract");
    const QString holder = ofLog2("to_addr");
    QVERIFY(!block.isEmpty() && !token.isEmpty() && !holder.isEmpty());
    const auto fill = [&](QString text) {
        return text.replace("%env", env)
            .replace("%block", block)
            .replace("%cp", cp)
            .replace("%token", token)
            .replace("%holder", holder);
    };
    for (const QString& sql : tamper)
        execOn(db, fill(sql));

    // Found: exit 1, each finding on its line, nothing written.
    const QString tampered = stateOn(db, env);
    const ProcessRun run = runForkscope(commandOn("verify", db, env, abiArgs));
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    for (const QString& line : found)
        QVERIFY2(run.out.contains(fill(line)), qPrintable(fill(line) + "\n" + run.out));
    QCOMPARE(run.out.count("\nHOLE "), holes);
    QCOMPARE(run.out.count("\nBALANCE "), balances);
    QVERIFY2(!run.out.contains("reorged at"), qPrintable(run.out));
    QCOMPARE(run.err.trimmed().count('\n'), 0);
    QCOMPARE(stateOn(db, env), tampered);

    // The advice names a repair, from the block (or, for balances alone, the checkpoint);
    // following it leaves nothing to find, the balances the token's own.
    static const QRegularExpression advice("\nverdict: [^\n]*: run `forkscope (repair [^`]+)`\n");
    const QRegularExpressionMatch m = advice.match(run.out);
    QVERIFY2(m.hasMatch(), qPrintable(run.out));
    const QStringList repair = m.captured(1).split(' ');
    QCOMPARE(repair.mid(repair.indexOf("--from"), 2),
             (QStringList{"--from", fromCheckpoint ? cp : block}));
    VERIFY_EXIT_OK(runForkscope(repair));
    const ProcessRun again =
        runForkscope(commandOn("verify", db, env, abiArgs + QStringList{"--balance-of"}));
    VERIFY_EXIT_OK(again);
    QVERIFY2(again.out.contains("verdict: clean"), qPrintable(again.out));
}

void TestVerify::aRepairFromALaterBlockKeepsTheTamperFound_data()
{
    QTest::addColumn<QString>("db");
    storeRows("a Transfer's value edited below --from",
              [](QTestData& r, const QString& db) { r << db; });
}

void TestVerify::aRepairFromALaterBlockKeepsTheTamperFound()
{
    QFETCH(QString, db);
    const QString env = "later";
    indexOn(db, env);
    const auto nth = [&](int n) {
        return textOn(db,
                      "SELECT block_number FROM logs WHERE environment_id = ? GROUP BY "
                      "block_number HAVING count(*) >= 10 ORDER BY block_number LIMIT 1 OFFSET ?",
                      {env, n});
    };
    const QString bad = nth(3);
    const QString later = nth(12);
    const QString value = textOn(db,
                                 "SELECT value FROM transfer_events WHERE environment_id = ? AND "
                                 "block_number = ? AND log_index = 2",
                                 {env, bad.toLongLong()});
    QVERIFY(!bad.isEmpty() && bad.toLongLong() < later.toLongLong() && !value.isEmpty());
    execOn(db, QStringLiteral("UPDATE log_store SET transfer_value = %1 WHERE environment_id = "
                              "'%2' AND block_number = %3 AND log_index = 2")
                   .arg(isPg(db) ? "12345" : "'12345'", env, bad));
    const QString edit =
        QStringLiteral("is not the node's log: value (stored value 12345, the log's %1)")
            .arg(value);

    const QString before = stateOn(db, env);
    const ProcessRun run = runForkscope(commandOn("repair", db, env, {"--from", later}));
    // A rebuild would make the two balances the edited Transfer's sum: refused, naming where
    // to repair from.
    VERIFY_ONE_ERROR_LINE(
        run, 1,
        (QStringList{
            QStringLiteral("the stored Transfer at block %1 (log index 2) ").arg(bad) + edit,
            QStringLiteral("a repair from block %1 would rebuild that balance").arg(later),
            QStringLiteral("repair from block %1 instead").arg(bad), "nothing was changed"}));
    QCOMPARE(stateOn(db, env), before);
    // The edit is still found, at its block.
    const ProcessRun found = runForkscope(commandOn("verify", db, env));
    QVERIFY2(found.finished && found.exitCode == 1, qPrintable(found.describe()));
    QVERIFY2(found.out.contains(QStringLiteral("HOLE block %1: 1 transfer altered (log index 2): "
                                               "value not what the node's log says (stored value "
                                               "12345, the log's %2)\n")
                                    .arg(bad, value)) &&
                 found.out.contains(QStringLiteral("--from %1`\n").arg(bad)),
             qPrintable(found.out));

    VERIFY_EXIT_OK(runForkscope(commandOn("repair", db, env, {"--from", bad})));
    const ProcessRun clean = runForkscope(commandOn("verify", db, env, {"--balance-of"}));
    VERIFY_EXIT_OK(clean);
    QVERIFY2(clean.out.contains("verdict: clean"), qPrintable(clean.out));
}

void TestVerify::balanceOfNamesWhatTheTransfersDoNotExplain_data()
{
    QTest::addColumn<QString>("db");
    storeRows("indexed from block 20", [](QTestData& r, const QString& db) { r << db; });
}

void TestVerify::balanceOfNamesWhatTheTransfersDoNotExplain()
{
    QFETCH(QString, db);
    const QString env = "partial";
    indexOn(db, env, {"--from-block", "20"});
    // The stored data is what the node has from block 20 on, balances their Transfers' sums.
    VERIFY_EXIT_OK(runForkscope(commandOn("verify", db, env)));
    // The token's own balances also count what came before block 20: named, and no repair
    // is offered for them.
    const QString before = stateOn(db, env);
    const ProcessRun run = runForkscope(commandOn("verify", db, env, {"--balance-of"}));
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QVERIFY2(run.out.contains("(the sum of its stored Transfers), the token's balanceOf at the "
                              "checkpoint is ") &&
                 run.out.contains("are not the sum of its Transfer events from block 20 "
                                  "(Transfers before the start block, or a token that moves "
                                  "balances without them): no repair changes that\n") &&
                 run.out.contains("no repair changes the token's own balances\n") &&
                 !run.out.contains("HOLE"),
             qPrintable(run.out));
    QVERIFY(run.out.count("\nBALANCE ") > 0);
    QCOMPARE(stateOn(db, env), before);
}

void TestVerify::badArgumentsChangeNothing_data()
{
    QTest::addColumn<QStringList>("args"); // %db, %rpc replaced
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QStringList>("mentions");
    const QStringList verify{"verify", "--db", "%db", "--env", "clean", "--rpc", "%rpc"};
    const QStringList repair{"repair", "--db", "%db", "--env", "clean", "--rpc", "%rpc"};
    QTest::newRow("verify without --db") << QStringList{"verify", "--env", "clean", "--rpc", "%rpc"}
                                         << 2 << QStringList{"--db is required"};
    QTest::newRow("verify without --env") << QStringList{"verify", "--db", "%db", "--rpc", "%rpc"}
                                          << 2 << QStringList{"--env is required"};
    QTest::newRow("verify without --rpc") << QStringList{"verify", "--db", "%db", "--env", "clean"}
                                          << 2 << QStringList{"--rpc is required"};
    QTest::newRow("verify --rpc not a URL")
        << QStringList{"verify", "--db", "%db", "--env", "clean", "--rpc", "localhost:1"} << 2
        << QStringList{"--rpc: \"localhost:1\" is not an http(s) URL"};
    QTest::newRow("verify --rpc port 0")
        << QStringList{"verify", "--db", "%db", "--env", "clean", "--rpc", "http://127.0.0.1:0/"}
        << 2 << QStringList{"--rpc: \"http://127.0.0.1:0/\" names port 0"};
    QTest::newRow("verify --from above --to") << verify + QStringList{"--from", "9", "--to", "3"}
                                              << 2 << QStringList{"--from 9 is above --to 3"};
    QTest::newRow("verify --from garbage")
        << verify + QStringList{"--from", "12abc"} << 2 << QStringList{"--from", "'a'"};
    QTest::newRow("verify --to negative")
        << verify + QStringList{"--to", "-1"} << 2 << QStringList{"--to", "negative"};
    QTest::newRow("verify --from past 2^62")
        << verify + QStringList{"--from", "4611686018427387905"} << 2
        << QStringList{"--from", "2^62"};
    QTest::newRow("verify --to twice") << verify + QStringList{"--to", "3", "--to", "4"} << 2
                                       << QStringList{"--to given 2 times (3, 4)"};
    QTest::newRow("verify an unknown flag")
        << verify + QStringList{"--frm", "3"} << 2 << QStringList{"frm"};
    QTest::newRow("verify a stray argument")
        << verify + QStringList{"extra"} << 2 << QStringList{"unexpected argument `extra`"};
    QTest::newRow("verify --to above the checkpoint")
        << verify + QStringList{"--to", "100000"} << 1
        << QStringList{"--to 100000 is above the checkpoint", "nothing was checked"};
    QTest::newRow("verify an unknown environment")
        << QStringList{"verify", "--db", "%db", "--env", "nope", "--rpc", "%rpc"} << 1
        << QStringList{"environment nope is not in", "known environments:", "clean (live)"};
    QTest::newRow("verify an archived environment")
        << QStringList{"verify", "--db", "%db", "--env", "archived", "--rpc", "%rpc"} << 1
        << QStringList{"environment archived was archived at"};
    QTest::newRow("verify a missing database")
        << QStringList{"verify", "--db", "/nonexistent/x.sqlite", "--env", "clean", "--rpc", "%rpc"}
        << 1 << QStringList{"database /nonexistent/x.sqlite does not exist"};
    QTest::newRow("verify --receipts given a value")
        << verify + QStringList{"--receipts=yes"} << 2 << QStringList{"receipts"};
    QTest::newRow("verify --abi of an environment indexed without one")
        << verify + QStringList{"--abi", kDemoAbi} << 1
        << QStringList{"environment clean was indexed without an ABI", "verify it without --abi",
                       "nothing was checked"};
    QTest::newRow("verify --abi that is no ABI")
        << verify + QStringList{"--abi", QStringLiteral(FORKSCOPE_SOURCE_DIR "/README.md")} << 2
        << QStringList{"--abi"};
    QTest::newRow("verify a PostgreSQL server that is not there")
        << QStringList{"verify", "--db",  "postgresql://postgres:secret@127.0.0.1:1/forkscope",
                       "--env",  "clean", "--rpc",
                       "%rpc"}
        << 1 << QStringList{"postgresql://postgres@127.0.0.1:1/forkscope"};
    QTest::newRow("repair without --from") << repair << 2 << QStringList{"--from is required"};
    QTest::newRow("repair --from garbage")
        << repair + QStringList{"--from", "1.5"} << 2 << QStringList{"--from", "fractional"};
    QTest::newRow("repair --to is not a repair flag")
        << repair + QStringList{"--from", "3", "--to", "4"} << 2 << QStringList{"to"};
    QTest::newRow("repair --from above the checkpoint")
        << repair + QStringList{"--from", "100000"} << 1
        << QStringList{"--from 100000 is above the checkpoint", "nothing was changed"};
    QTest::newRow("repair --from below the start block")
        << QStringList{"repair", "--db", "%db", "--env", "late", "--rpc", "%rpc", "--from", "5"}
        << 1 << QStringList{"--from 5 is below the start block 20", "nothing was changed"};
    QTest::newRow("repair an unknown environment")
        << QStringList{"repair", "--db", "%db", "--env", "nope", "--rpc", "%rpc", "--from", "3"}
        << 1 << QStringList{"environment nope is not in"};
    QTest::newRow("repair an archived environment")
        << QStringList{"repair", "--db", "%db", "--env", "archived", "--rpc", "%rpc", "--from", "3"}
        << 1 << QStringList{"environment archived was archived at"};
    QTest::newRow("repair a node that is not there")
        << QStringList{"repair", "--db", "%db", "--env", "clean", "--rpc", "http://127.0.0.1:9",
                       "--from", "3"}
        << 1 << QStringList{"node http://127.0.0.1:9 did not answer", "nothing was changed"};
    QTest::newRow("repair --abi that is the database")
        << repair + QStringList{"--from", "3", "--abi", "%db"} << 2
        << QStringList{"--abi", "is the database"};
}

void TestVerify::badArgumentsChangeNothing()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QStringList, mentions);
    if (count("SELECT count(*) FROM environments WHERE environment_id = 'archived'") == 0) {
        VERIFY_EXIT_OK(m_lab->runIndex("archived", {"--exit-when-synced"}));
        exec("UPDATE environments SET archived_at = '2025-01-02T03:04:05.678Z' WHERE "
             "environment_id = 'archived'");
        VERIFY_EXIT_OK(m_lab->runIndex("late", {"--exit-when-synced", "--from-block", "20"}));
    }
    args.replaceInStrings("%db", m_lab->dbPath());
    args.replaceInStrings("%rpc", rpcUrl());
    // Nothing runs between two rows, so the previous row's proven "after" is this row's
    // "before": one dump of the whole file per row instead of two.
    const QString before = m_badArgumentsState.isEmpty() ? m_lab->dump() : m_badArgumentsState;
    m_badArgumentsState.clear();
    VERIFY_ONE_ERROR_LINE(runForkscope(args), exitCode, mentions);
    QCOMPARE(m_lab->dump(), before);
    m_badArgumentsState = before;
}

void TestVerify::repairRefusesADatabaseOpenInAnotherProcess()
{
    // An indexer following the head keeps the database open between its commits: the repair
    // must see it even when no transaction is under way.
    QProcess indexer;
    indexer.start(QStringLiteral(FORKSCOPE_BINARY), m_lab->indexArgs("clean", {"--poll-ms", "50"}));
    QVERIFY(indexer.waitForStarted(5000));
    QString out;
    QTRY_VERIFY_WITH_TIMEOUT(
        (out += QString::fromUtf8(indexer.readAllStandardOutput()), out.contains("synced")), 60000);
    const qint64 pid = indexer.processId();
    const ProcessRun run = runForkscope(repairArgs("clean", {"--from", "10"}));
    indexer.kill();
    indexer.waitForFinished(5000);
    VERIFY_ONE_ERROR_LINE(
        run, 1,
        (QStringList{QStringLiteral("is open in another process (pid %1").arg(pid), "stop it first",
                     "nothing was changed"}));
    QCOMPARE(count("SELECT count(*) FROM reorg_events WHERE environment_id = 'clean'"), 0);
}

void TestVerify::anInterruptedRepairSaysWhereItStopped_data()
{
    QTest::addColumn<QString>("db");
    storeRows("interrupted", [](QTestData& row, const QString& db) { row << db; });
}

// Ctrl-C while the repair indexes again: it stops between rounds (no event loop turns
// there), says what is committed and how to finish, and its advice does finish.
void TestVerify::anInterruptedRepairSaysWhereItStopped()
{
    QFETCH(QString, db);
    const QString env = isPg(db) ? "interrupted-pg" : "interrupted-file";
    indexOn(db, env);
    // A slow node, then none: the repair rolls back and keeps trying to index again.
    lab::FaultProxy node(m_lab->devnet().url());
    node.listen();
    node.setLatencyMs(400);
    QStringList args = commandOn("repair", db, env, {"--from", "5"});
    args[args.indexOf("--rpc") + 1] = node.url().toString();
    QProcess p;
    p.start(QStringLiteral(FORKSCOPE_BINARY), args);
    QString out;
    QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromUtf8(p.readAllStandardOutput()),
                              out.contains("rolled back to block 4")),
                             60000);
    node.setOffline(true);
    ::kill(pid_t(p.processId()), SIGINT);
    const ProcessRun run = test::waitForProcess(p, 60000);
    VERIFY_ONE_ERROR_LINE(
        run, 1,
        (QStringList{
            "the rollback to block 4 is committed, but indexing again stopped at checkpoint",
            "stopped on request", "finish with `forkscope index"}));
    // Its advice finishes the job: nothing to repair any more, the index whole again.
    indexOn(db, env);
    VERIFY_EXIT_OK(runForkscope(commandOn("verify", db, env)));
}

void TestVerify::repairRefusesANodeOfAnotherChain()
{
    lab::Devnet other;
    other.start({});
    const QString before = m_lab->dump();
    for (const QString& command : {QStringLiteral("verify"), QStringLiteral("repair")}) {
        QStringList args{command, "--db",  m_lab->dbPath(),        "--env",
                         "clean", "--rpc", other.url().toString(), "--from",
                         "10"};
        VERIFY_ONE_ERROR_LINE(
            runForkscope(args), 1,
            (QStringList{"serves another chain than environment clean",
                         command == "verify" ? "nothing was checked" : "nothing was changed"}));
    }
    QCOMPARE(m_lab->dump(), before);
}

void TestVerify::repairOfAbiDecodedLogsDecodesThemAgain()
{
    VERIFY_EXIT_OK(m_lab->runIndex("abi", {"--exit-when-synced", "--abi", kDemoAbi}));
    const std::uint64_t bad = blockWithLogs("abi", 10, 5);
    exec(QStringLiteral("DELETE FROM logs WHERE environment_id = 'abi' AND block_number = %1")
             .arg(bad));
    exec(QStringLiteral("DELETE FROM transfer_events WHERE environment_id = 'abi' AND "
                        "block_number = %1")
             .arg(bad));

    // Without the ABI the repaired blocks would come back raw among decoded ones: refused.
    const QString before = m_lab->dump();
    VERIFY_ONE_ERROR_LINE(
        runForkscope(repairArgs("abi", {"--from", QString::number(bad)})), 1,
        (QStringList{"indexed with an ABI", "--abi FILE", "nothing was changed"}));
    QCOMPARE(m_lab->dump(), before);

    VERIFY_EXIT_OK(
        runForkscope(repairArgs("abi", {"--from", QString::number(bad), "--abi", kDemoAbi})));
    VERIFY_EXIT_OK(runForkscope(verifyArgs("abi")));
    QCOMPARE(count("SELECT count(*) FROM logs WHERE environment_id = 'abi' AND event_name IS NULL "
                   "AND decode_error IS NULL"),
             0);
    QCOMPARE(count(QStringLiteral("SELECT count(*) FROM logs WHERE environment_id = 'abi' AND "
                                  "block_number = %1 AND event_name = 'Transfer'")
                       .arg(bad)),
             10);
    const QStringList problems = m_lab->verify("abi");
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TestVerify::openCompletenessAlertsAreNamedAndRepaired()
{
    VERIFY_EXIT_OK(m_lab->runIndex("alerted", {"--exit-when-synced"}));
    {
        auto db = store::Database::open(m_lab->dbPath());
        indexer::CompletenessAlerts(*db, "alerted", 31337)
            .record("http://node.example", 20, 25, "missing 3 logs of ours");
        // A suspicion about a later block: the repair's rollback settles it, and the repair
        // counts it with the rest.
        indexer::CompletenessAlerts(*db, "alerted", 31337)
            .record("http://node.example", 30, 30, "no longer returns 2 stored logs",
                    QStringLiteral("absence"));
    }
    const ProcessRun run = runForkscope(verifyArgs("alerted"));
    VERIFY_EXIT_OK(run); // the stored rows are complete; the alert is named all the same
    QVERIFY2(run.out.contains("open alert: data incomplete: node http://node.example, blocks "
                              "20-25: missing 3 logs of ours (the indexer could not prove blocks "
                              "20..25 complete; `forkscope repair --from 20` fetches them again)"),
             qPrintable(run.out));

    // A repair from inside its range would call the blocks below repaired: refused.
    const QString before = m_lab->dump();
    VERIFY_ONE_ERROR_LINE(runForkscope(repairArgs("alerted", {"--from", "22"})), 1,
                          (QStringList{"an open completeness alert covers blocks 20-25",
                                       "repair from block 20", "nothing was changed"}));
    QCOMPARE(m_lab->dump(), before);

    const ProcessRun repair = runForkscope(repairArgs("alerted", {"--from", "20"}));
    VERIFY_EXIT_OK(repair);
    QVERIFY2(repair.out.contains("resolved 2 completeness alerts from block 20 on"),
             qPrintable(repair.out));
    QCOMPARE(count("SELECT count(*) FROM completeness_alerts WHERE environment_id = 'alerted' AND "
                   "resolved_at IS NOT NULL AND resolution LIKE 'repaired from block 20 (reorg "
                   "id %'"),
             1);
    const ProcessRun again = runForkscope(verifyArgs("alerted"));
    VERIFY_EXIT_OK(again);
    QVERIFY2(!again.out.contains("open alert"), qPrintable(again.out));
}

void TestVerify::receiptsProveEveryBlockWithOurLogs()
{
    const QString before = m_lab->dump();
    const ProcessRun run = runForkscope(verifyArgs("clean", {"--receipts"}));
    VERIFY_EXIT_OK(run);
    const QRegularExpression suspects(
        "blooms admitting a contract with no stored log of it: (\\d+)");
    const auto m = suspects.match(run.out);
    QVERIFY2(m.hasMatch(), qPrintable(run.out));
    const qint64 blocksWithLogs =
        count("SELECT count(DISTINCT block_number) FROM logs WHERE environment_id = 'clean'");
    QVERIFY2(run.out.contains(QStringLiteral("checked: %1 blocks' logs against their receipts "
                                             "root proof")
                                  .arg(blocksWithLogs + m.captured(1).toLongLong())) &&
                 run.out.contains("verdict: clean"),
             qPrintable(run.out));
    QCOMPARE(m_lab->dump(), before);

    // A node that drops every log of some blocks, the same in every answer (by range, by
    // hash, in the receipts): the receipts cannot rebuild the header's commitments.
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLogDrops(0.0, 0.3);
    QStringList args = verifyArgs("clean", {"--receipts"});
    args[args.indexOf("--rpc") + 1] = proxy.url().toString();
    const ProcessRun dropped = runForkscope(args);
    VERIFY_ONE_ERROR_LINE(
        dropped, 1,
        (QStringList{"verify: node " + proxy.url().toString(), "receipts of block",
                     "it cannot serve as the reference, nothing was concluded"}));
    QVERIFY2(!dropped.out.contains("HOLE"), qPrintable(dropped.out));
    QCOMPARE(m_lab->dump(), before);
}

void TestVerify::helpNamesTheCommands()
{
    const ProcessRun top = runForkscope({"--help"});
    VERIFY_EXIT_OK(top);
    QVERIFY2(
        top.out.contains("forkscope verify --db FILE|URL --env ID --rpc URL [--from N] [--to M] "
                         "[--receipts]") &&
            top.out.contains("forkscope repair --db FILE|URL --env ID --rpc URL --from N"),
        qPrintable(top.out));
    const ProcessRun verify = runForkscope({"verify", "--help"});
    VERIFY_EXIT_OK(verify);
    for (const char* flag : {"--db <FILE|URL>", "--env <ID>", "--rpc <URL>", "--from <N>",
                             "--to <M>", "--receipts", "--abi <FILE>", "--balance-of"})
        QVERIFY2(verify.out.contains(flag), qPrintable(verify.out));
    const ProcessRun repair = runForkscope({"repair", "--help"});
    VERIFY_EXIT_OK(repair);
    for (const char* flag : {"--db <FILE|URL>", "--env <ID>", "--rpc <URL>", "--from <N>", "--abi"})
        QVERIFY2(repair.out.contains(flag), qPrintable(repair.out));
}

void TestVerify::reorgedChainIsNamedNotAHole()
{
    VERIFY_EXIT_OK(m_lab->runIndex("moved", {"--exit-when-synced"}));
    const std::uint64_t head = m_lab->eth().blockNumber();
    m_lab->reorg(3);
    const QString before = m_lab->dump();
    const ProcessRun run = runForkscope(verifyArgs("moved"));
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QVERIFY2(run.out.contains(QStringLiteral("reorged at %1: the stored hash").arg(head - 2)) &&
                 run.out.contains("run `forkscope index` to roll back"),
             qPrintable(run.out));
    QVERIFY(!run.out.contains("HOLE"));
    QVERIFY2(run.err.contains(QStringLiteral("reorged at block %1").arg(head - 2)),
             qPrintable(run.err));
    QCOMPARE(m_lab->dump(), before);
}

QTEST_GUILESS_MAIN(TestVerify)
#include "tst_verify.moc"
