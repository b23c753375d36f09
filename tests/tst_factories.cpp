// Factory sources on both stores, the store a data row: `forkscope index --factory` follows a
// real factory (resources/contracts/DemoFactory.sol) on a real anvil, whose every child mints
// in its constructor, a log that comes before the factory's own creation event. Children are
// created at random blocks, in blocks with more Transfers through them, and every check reads
// the contract's surface (store::ContractReader) against what the node says, decoded here by
// hand: the children from the factory's events, every log of each child from its creation
// block on, and each holder's balance summed from the node's Transfers, with 200 children.
// Then reorgs of depth 1 to 12 that remove children and create them again at other blocks
// (and the report's count of them), a child and a child's log lost and found by verify, with
// and without the receipts proof, and put back by repair, and the flags' one-line refusals.
// Killed mid-batch and mid-rollback: tst_factoriescrash.
#include "CsvRows.h"
#include "FactoryLab.h"
#include "chain/Keccak.h"
#include "lab/DemoToken.h"
#include "lab/FaultProxy.h"
#include "lab/ReorgInjector.h"
#include "proof/Rlp.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QtTest>

using namespace forkscope;
using test::Backend;

using test::FactoryChain;
using test::NodeChild;

namespace {
const QString& kEvent = test::kPairCreated;
} // namespace

class TestFactories : public QObject, public test::FactoryLab
{
    Q_OBJECT
private slots:
    void initTestCase() { m_cluster.start(); }
    void init();
    void theFlagsRefuseABadFactoryInOneLine_data();
    void theFlagsRefuseABadFactoryInOneLine();
    void everyChildIsIndexedFromItsCreationBlock_data() { rows(); }
    void everyChildIsIndexedFromItsCreationBlock();
    void reorgsRemoveChildrenAndCreateThemAgain_data() { rows(); }
    void reorgsRemoveChildrenAndCreateThemAgain();
    void aProviderLimitOnAddressesSplitsTheLists_data() { rows(); }
    void aProviderLimitOnAddressesSplitsTheLists();
    void aLostChildAndALostChildLogAreFoundAndRepaired_data() { rows(); }
    void aLostChildAndALostChildLogAreFoundAndRepaired();

private:
    // Spec scale: how many children the big row creates.
    static constexpr int kManyChildren = 200;
};

void TestFactories::init()
{
    // The flags are refused before any node is asked: one lab for all of their rows.
    if (m_lab && QTest::currentTestFunction() == QByteArray("theFlagsRefuseABadFactoryInOneLine"))
        return;
    newChain(51);
}

void TestFactories::theFlagsRefuseABadFactoryInOneLine_data()
{
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QStringList>("mentions");
    const QString factory = QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3");
    QTest::newRow("a signature that does not close")
        << QStringList{"--factory",       factory,
                       "--factory-event", "PairCreated(address indexed token0, address pair",
                       "--child-arg",     "pair"}
        << QStringList{"--factory-event", "not an event signature"};
    QTest::newRow("an unknown type")
        << QStringList{"--factory",          factory,       "--factory-event",
                       "Made(adress child)", "--child-arg", "child"}
        << QStringList{"--factory-event", "adress"};
    QTest::newRow("an argument it does not have")
        << QStringList{"--factory", factory, "--factory-event", kEvent, "--child-arg", "pool"}
        << QStringList{"--child-arg pool", "no argument of that name", "token0, token1, pair"};
    QTest::newRow("an argument that is no address")
        << QStringList{"--factory", factory, "--factory-event", kEvent, "--child-arg", "3"}
        << QStringList{"--child-arg 3", "uint256", "not an address"};
    QTest::newRow("an event named without an ABI")
        << QStringList{"--factory",   factory,       "--factory-event",
                       "PairCreated", "--child-arg", "pair"}
        << QStringList{"--factory-event PairCreated", "--abi"};
    QTest::newRow("a factory without its event")
        << QStringList{"--factory", factory, "--child-arg", "pair"}
        << QStringList{"--factory needs --factory-event"};
    QTest::newRow("a factory that is no address")
        << QStringList{"--factory", "0x12", "--factory-event", kEvent, "--child-arg", "pair"}
        << QStringList{"--factory"};
}

void TestFactories::theFlagsRefuseABadFactoryInOneLine()
{
    QFETCH(QStringList, flags);
    QFETCH(QStringList, mentions);
    const QString db =
        m_dir.filePath(QString::fromLatin1(QTest::currentDataTag()) + QStringLiteral(".sqlite"));
    const test::ProcessRun run = test::runForkscope(
        QStringList{"index", "--rpc", m_lab->devnet().url().toString(), "--db", db, "--env", "e"} +
        flags);
    VERIFY_ONE_ERROR_LINE(run, 2, mentions);
    QVERIFY2(!QFile::exists(db), "a refused command line must not create the database");
}

void TestFactories::everyChildIsIndexedFromItsCreationBlock()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("children");
    // 200 children at random blocks (up to six in a block, some blocks with none), each with
    // its constructor's mint and a Transfer in its creation block and sprays through it
    // later; indexed in ranges of 3 blocks, so that most ranges create a child the ranges
    // fetched beside them did not know yet.
    while (m_chain->children() < kManyChildren)
        m_chain->block(std::min(int(m_random.bounded(7)), kManyChildren - int(m_chain->children())),
                       m_random.bounded(3), m_random);
    // The same flags from --config: {"factory", "factoryEvent", "childArg"}.
    const QString config = m_lab->tempPath(QStringLiteral("factory.json"));
    QFile f(config);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QJsonDocument(QJsonObject{{"rpc", m_lab->devnet().url().toString()},
                                      {"db", db},
                                      {"env", env},
                                      {"factory", m_chain->factory().toHex()},
                                      {"factoryEvent", kEvent},
                                      {"childArg", "pair"},
                                      {"batchSize", 3},
                                      {"exitWhenSynced", true}})
                .toJson());
    f.close();
    VERIFY_EXIT_OK(test::runForkscope({"index", "--config", config}));
    Backend b(db);
    expectTheNodesChildren(b, env);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM factory_children WHERE "
                                            "environment_id = ?"),
                             {env}),
             qint64(kManyChildren));
    b.close();

    // More children while it follows: each run picks up where the checkpoint is.
    for (int n = 0; n < 4; ++n)
        m_chain->block(1 + m_random.bounded(2), 2, m_random);
    VERIFY_EXIT_OK(test::runForkscope(factoryArgs(db, env)));
    expectTheNodesChildren(b, env);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(b.open().scalar(QStringLiteral("SELECT count(*) FROM factory_children WHERE "
                                           "environment_id = ?"),
                            {env}) >= 6);
    b.close();
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
    // The receipts root proves every child's logs too.
    const test::ProcessRun proven = test::runForkscope(verifyArgs(db, env) << "--receipts");
    VERIFY_EXIT_OK(proven);
    QVERIFY2(proven.out.contains("verdict: clean"), qPrintable(proven.out));
    const qint64 blocksWithLogs = b.open().scalar(
        QStringLiteral("SELECT count(DISTINCT block_number) FROM logs WHERE environment_id = ?"),
        {env});
    b.close();
    QVERIFY2(proven.out.contains(
                 QStringLiteral("checked: %1 blocks' logs against their receipts root proof")
                     .arg(blocksWithLogs)),
             qPrintable(proven.out));
    // The report's invariant check covers the children too, against the node.
    const QString report = m_dir.filePath(QStringLiteral("report.json"));
    VERIFY_EXIT_OK(test::runForkscope(
        {"report", "--db", db, "--env", env, "--format", "json", "--out", report}));
    QFile json(report);
    QVERIFY(json.open(QIODevice::ReadOnly));
    const QJsonObject invariants =
        QJsonDocument::fromJson(json.readAll()).object().value("invariants").toObject();
    QVERIFY2(invariants.value("state").toString() == "hold",
             qPrintable(QJsonDocument(invariants).toJson()));
    QVERIFY(invariants.value("contracts_checked").toArray().size() > 2);

    // The same table as another indexer's, for `forkscope audit --factory`: whole, then with
    // one child's Transfer left out of what the query yields.
    const QString query = QStringLiteral(
        "SELECT t.block_number, t.log_index, t.tx_hash, b.block_hash, t.contract, "
        "t.from_addr AS \"from\", t.to_addr AS \"to\", t.value FROM transfer_events t JOIN "
        "blocks b ON b.environment_id = t.environment_id AND b.chain_id = t.chain_id AND "
        "b.block_number = t.block_number WHERE t.environment_id = 'children'");
    const QStringList audit{"audit",
                            "--target",
                            db,
                            "--rpc",
                            m_lab->devnet().url().toString(),
                            "--factory",
                            m_chain->factory().toHex(),
                            "--factory-event",
                            kEvent,
                            "--child-arg",
                            "pair"};
    const test::ProcessRun whole = test::runForkscope(audit + QStringList{"--query", query});
    VERIFY_EXIT_OK(whole);
    QVERIFY2(whole.out.contains(QStringLiteral("checked: %1 children of factory %2")
                                    .arg(m_chain->children())
                                    .arg(m_chain->factory().toHex())) &&
                 whole.out.contains("verdict: clean"),
             qPrintable(whole.out));
    store::ContractReader& r = b.open();
    const qint64 block = r.scalar(
        QStringLiteral("SELECT max(block_number) FROM transfer_events WHERE environment_id = ?"),
        {env});
    const qint64 logIndex =
        r.scalar(QStringLiteral("SELECT min(log_index) FROM transfer_events WHERE "
                                "environment_id = ? AND block_number = ?"),
                 {env, block});
    b.close();
    const test::ProcessRun lacking = test::runForkscope(
        audit + QStringList{"--query", query + QStringLiteral(" AND NOT (t.block_number = %1 AND "
                                                              "t.log_index = %2)")
                                                   .arg(block)
                                                   .arg(logIndex)});
    QCOMPARE(lacking.exitCode, 1);
    QVERIFY2(lacking.out.contains(QStringLiteral("MISSING block %1, tx ").arg(block)) &&
                 lacking.out.contains(QStringLiteral("log %1, contract ").arg(logIndex)) &&
                 lacking.out.contains("verdict: 1 finding: 1 missing"),
             qPrintable(lacking.out));
}

void TestFactories::reorgsRemoveChildrenAndCreateThemAgain()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("reorged");
    const QString outbox = m_lab->tempPath(QStringLiteral("outbox-%1.jsonl").arg(env));
    QFile::remove(outbox);
    for (int n = 0; n < 14; ++n)
        m_chain->block(m_random.bounded(3), m_random.bounded(3), m_random);
    const QStringList deliver{"--outbox-file", outbox};
    VERIFY_EXIT_OK(test::runForkscope(factoryArgs(db, env) + deliver));
    Backend b(db);
    expectTheNodesChildren(b, env);
    if (QTest::currentTestFailed())
        return;

    // Depths 1 to 12: the blocks' transactions dropped (their children vanish) or moved one
    // block later (their children are created again, at another block).
    const QList<QPair<int, lab::ReorgTxMode>> reorgs{{12, lab::ReorgTxMode::Move},
                                                     {4, lab::ReorgTxMode::Drop},
                                                     {1, lab::ReorgTxMode::Drop},
                                                     {7, lab::ReorgTxMode::Move}};
    qint64 removedChildren = 0;
    for (const auto& [depth, mode] : reorgs) {
        const quint64 head = m_lab->eth().blockNumber();
        const QList<NodeChild> before = m_chain->nodeChildren(head);
        lab::ReorgInjector::inject(m_lab->rpc(), depth, mode);
        m_chain->readNode();
        // Every child created in the replaced blocks goes with them; those the branch creates
        // again (at another block, or the same address from the factory's same nonce) are
        // new discoveries.
        QStringList gone;
        for (const NodeChild& c : before)
            if (c.block > qint64(head) - depth)
                gone << c.address;
        removedChildren += gone.size();
        // A new block with a child the branch creates next (an address of a vanished one,
        // when the factory's nonce went back), and Transfers through the others.
        m_chain->block(1, 2, m_random);
        VERIFY_EXIT_OK(test::runForkscope(factoryArgs(db, env) + deliver));
        expectTheNodesChildren(b, env);
        if (QTest::currentTestFailed())
            return;
        store::ContractReader& r = b.open();
        const qint64 reorgId = r.scalar(QStringLiteral("SELECT max(id) FROM reorg_events WHERE "
                                                       "environment_id = ?"),
                                        {env});
        QStringList listed;
        for (auto q = r.query(QStringLiteral("SELECT contract, from_addr FROM reorg_diff_items "
                                             "WHERE environment_id = ? AND reorg_id = ? AND "
                                             "kind = 'child_removed'"),
                              {env, reorgId});
             q->next();) {
            QCOMPARE(q->value(1).toString(), m_chain->factory().toHex());
            listed << q->value(0).toString();
        }
        listed.sort();
        gone.sort();
        QCOMPARE(listed, gone);
        b.close();
    }
    QVERIFY2(removedChildren > 0, "the reorgs removed no child");

    // What was delivered and then rolled back (the Transfers of vanished children among it)
    // is retracted, and the retractions delivered.
    QVERIFY(expectDeliveredRetracted(b, env, outbox) > 0);
    expectNoOrphans(b, env);
    if (QTest::currentTestFailed())
        return;

    // The report counts the removed children, per reorg, in its JSON and its CSV.
    const QString json = m_dir.filePath(env + QStringLiteral(".json"));
    const QString csv = m_dir.filePath(env + QStringLiteral(".csv"));
    for (const auto& [format, out] : {std::pair{"json", json}, std::pair{"csv", csv}})
        VERIFY_EXIT_OK(test::runForkscope(
            {"report", "--db", db, "--env", env, "--format", format, "--out", out}));
    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    qint64 inJson = 0;
    for (const QJsonValue& reorg :
         QJsonDocument::fromJson(jsonFile.readAll()).object().value("reorgs").toArray())
        inJson += reorg.toObject().value("diff_counts").toObject().value("child_removed").toInt();
    QCOMPARE(inJson, removedChildren);
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QList<QStringList> records = test::parseCsv(csvFile.readAll());
    const qsizetype column = records.value(0).indexOf("diff_child_removed");
    QVERIFY2(column >= 0, qPrintable(records.value(0).join(',')));
    qint64 inCsv = 0;
    for (const QStringList& record : records)
        if (record.value(0) == QLatin1String("reorg"))
            inCsv += record.value(column).toLongLong();
    QCOMPARE(inCsv, removedChildren);
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

void TestFactories::aProviderLimitOnAddressesSplitsTheLists()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("limited");
    for (int n = 0; n < 6; ++n)
        m_chain->block(1 + m_random.bounded(2), 2, m_random);
    // A node that takes at most 3 addresses per filter, as geth past --rpc.getlogmaxaddrs.
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setMaxAddresses(3);
    // The event named by its name in the factory's ABI file, which decodes its logs too.
    const QString abi =
        QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoFactory.json");
    QStringList args = factoryArgs(db, env);
    args[2] = proxy.url().toString(); // --rpc
    args[args.indexOf("--factory-event") + 1] = QStringLiteral("PairCreated");
    VERIFY_EXIT_OK(test::runForkscope(args << "--abi" << abi));
    QVERIFY(proxy.refusedAddressLists() > 0);
    Backend b(db);
    expectTheNodesChildren(b, env);
    if (QTest::currentTestFailed())
        return;
    QStringList verify = verifyArgs(db, env);
    verify.last() = proxy.url().toString(); // --rpc
    verify << "--abi" << abi;
    const test::ProcessRun clean = test::runForkscope(verify);
    VERIFY_EXIT_OK(clean);
    QVERIFY2(clean.out.contains("verdict: clean"), qPrintable(clean.out));
}

void TestFactories::aLostChildAndALostChildLogAreFoundAndRepaired()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("lost");
    m_chain->block(1, 0, m_random);
    m_chain->block(0, 0, m_random);
    m_chain->block(1, 0, m_random); // the child that is lost
    m_chain->block(1, 3, m_random);
    m_chain->block(0, 3, m_random); // a Transfer of a child that is lost
    VERIFY_EXIT_OK(test::runForkscope(factoryArgs(db, env)));
    Backend b(db);
    expectTheNodesChildren(b, env);
    if (QTest::currentTestFailed())
        return;
    const QList<NodeChild> node = m_chain->nodeChildren(m_lab->eth().blockNumber());
    QCOMPARE(node.size(), 3);
    const NodeChild lost = node.at(1);
    const qint64 lastBlock = qint64(m_lab->eth().blockNumber());
    // Lost rows (through the store itself: never a stray file write).
    store::ContractReader& r = b.open();
    r.query(QStringLiteral("DELETE FROM child_store WHERE environment_id = ? AND block_number = ?"),
            {env, lost.block});
    r.query(QStringLiteral("DELETE FROM log_store WHERE environment_id = ? AND block_number = ? "
                           "AND log_index = 0"),
            {env, lastBlock});
    b.close();

    // Found by the range answers and blooms, and by the receipts root alike.
    for (const QStringList& proof : {QStringList{}, QStringList{"--receipts"}}) {
        const test::ProcessRun found = test::runForkscope(verifyArgs(db, env) + proof);
        QCOMPARE(found.exitCode, 1);
        QVERIFY2(found.out.contains(QStringLiteral("HOLE block %1: missing 1 child of the "
                                                   "factory: %2 (log index %3)")
                                        .arg(lost.block)
                                        .arg(lost.address)
                                        .arg(lost.logIndex)),
                 qPrintable(found.out));
        QVERIFY2(found.out.contains(
                     QStringLiteral("HOLE block %1: missing 1 log (log index 0)").arg(lastBlock)),
                 qPrintable(found.out));
        QCOMPARE(found.out.count("HOLE "), 2);
    }

    VERIFY_EXIT_OK(test::runForkscope({"repair", "--db", db, "--env", env, "--rpc",
                                       m_lab->devnet().url().toString(), "--from",
                                       QString::number(lost.block)}));
    expectTheNodesChildren(b, env);
    if (QTest::currentTestFailed())
        return;
    const test::ProcessRun clean = test::runForkscope(verifyArgs(db, env));
    VERIFY_EXIT_OK(clean);
    QVERIFY2(clean.out.contains("verdict: clean"), qPrintable(clean.out));
}

QTEST_GUILESS_MAIN(TestFactories)
#include "tst_factories.moc"
