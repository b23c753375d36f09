// Factory sources on both stores, the store a data row: `forkscope index --factory` follows a
// real factory (resources/contracts/DemoFactory.sol) on a real anvil, whose every child mints
// in its constructor, a log that comes before the factory's own creation event. Children are
// created at random blocks, in blocks with more Transfers through them, and every check reads
// the contract's surface (store::ContractReader) against what the node says, decoded here by
// hand: the children from the factory's events, every log of each child from its creation
// block on, and each holder's balance summed from the node's Transfers. Then reorgs of depth
// 1 to 12 that remove children and create them again at other blocks, a child and a child's
// log lost and found by verify and put back by repair, and the flags' one-line refusals.
#include "BackendLab.h"
#include "FactoryChain.h"
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

class TestFactories : public QObject, public test::BackendLab
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
    // Each store; a file of its own per test function (each row runs on a chain of its own).
    void rows()
    {
        QTest::addColumn<QString>("db");
        QTest::newRow("sqlite") << m_dir.filePath(
            QString::fromLatin1(QTest::currentTestFunction()) + QStringLiteral(".sqlite"));
        QTest::newRow("postgresql") << m_cluster.url();
    }

    QStringList factoryArgs(const QString& db, const QString& env) const
    {
        return {QStringLiteral("index"),
                QStringLiteral("--rpc"),
                m_lab->devnet().url().toString(),
                QStringLiteral("--db"),
                db,
                QStringLiteral("--env"),
                env,
                QStringLiteral("--factory"),
                m_chain->factory().toHex(),
                QStringLiteral("--factory-event"),
                kEvent,
                QStringLiteral("--child-arg"),
                QStringLiteral("pair"),
                QStringLiteral("--batch-size"),
                QStringLiteral("3"),
                QStringLiteral("--exit-when-synced")};
    }

    // The stored children, logs and balances of `env` are the node's, up to the checkpoint:
    // each child from its creation event, each of its logs from that block on, each holder's
    // balance the sum of the node's Transfers, and no row of any other contract.
    void expectTheNodesChildren(Backend& b, const QString& env);

    QTemporaryDir m_dir;
    std::unique_ptr<FactoryChain> m_chain;
    QRandomGenerator m_random;
};

void TestFactories::init()
{
    // The flags are refused before any node is asked: one lab for all of their rows.
    if (m_lab && QTest::currentTestFunction() == QByteArray("theFlagsRefuseABadFactoryInOneLine"))
        return;
    // A chain of its own per row: the reorgs change it.
    m_chain.reset();
    m_lab = std::make_unique<test::IndexerLab>();
    m_chain = std::make_unique<FactoryChain>(*m_lab);
    m_random.seed(quint32(qHash(QString::fromLatin1(QTest::currentDataTag()))) + 51);
}

void TestFactories::expectTheNodesChildren(Backend& b, const QString& env)
{
    store::ContractReader& r = b.open();
    const qint64 cp = checkpointOf(r, env);
    QVERIFY(cp > 0);
    const QList<NodeChild> node = m_chain->nodeChildren(quint64(cp));
    QList<NodeChild> stored;
    for (auto q = r.query(QStringLiteral("SELECT child, block_number, log_index, factory FROM "
                                         "factory_children WHERE environment_id = ? ORDER BY "
                                         "block_number, log_index"),
                          {env});
         q->next();) {
        QCOMPARE(q->value(3).toString(), m_chain->factory().toHex());
        stored << NodeChild{q->value(0).toString(), q->value(1).toLongLong(),
                            q->value(2).toLongLong()};
    }
    QCOMPARE(stored, node);

    // Every log of the factory and its children, once: a child's constructor mint, logged
    // before the creation event, included.
    QList<chain::Address> addresses{m_chain->factory()};
    for (const NodeChild& c : node)
        addresses << chain::Address::fromHex(c.address, QStringLiteral("child"));
    rpc::LogFilter f = rpc::LogFilter::range(0, quint64(cp), addresses);
    const QList<chain::LogEntry> nodeLogs = m_lab->eth().getLogs(f);
    QSet<QString> expected;
    // contract -> holder -> balance, summed from the node's Transfers
    QHash<QString, QHash<QString, qint64>> sums;
    const chain::Hash32 transfer = chain::eventTopic(QStringLiteral("Transfer(address,address,"
                                                                    "uint256)"));
    for (const chain::LogEntry& l : nodeLogs) {
        expected << QStringLiteral("%1/%2/%3/%4")
                        .arg(l.blockNumber)
                        .arg(l.logIndex)
                        .arg(l.address.toHex(), l.transactionHash.toHex());
        if (l.topics.size() != 3 || l.topics[0] != transfer)
            continue;
        const qint64 value = l.data.right(8).toHex().toLongLong(nullptr, 16);
        const QString from = QStringLiteral("0x") + l.topics[1].toByteArray().right(20).toHex();
        const QString to = QStringLiteral("0x") + l.topics[2].toByteArray().right(20).toHex();
        const QString zero = QStringLiteral("0x") + QString(40, QLatin1Char('0'));
        if (from != zero)
            sums[l.address.toHex()][from] -= value;
        if (to != zero)
            sums[l.address.toHex()][to] += value;
    }
    // The constructors' mints are there, each before its factory's event in the same block.
    for (const NodeChild& c : node) {
        bool mintBefore = false;
        for (const chain::LogEntry& l : nodeLogs)
            mintBefore =
                mintBefore || (l.address.toHex() == c.address && qint64(l.blockNumber) == c.block &&
                               qint64(l.logIndex) < c.logIndex);
        QVERIFY2(mintBefore, qPrintable(c.address));
    }
    QSet<QString> got;
    qint64 rows = 0;
    for (auto q = r.query(QStringLiteral("SELECT block_number, log_index, address, tx_hash FROM "
                                         "logs WHERE environment_id = ?"),
                          {env});
         q->next(); ++rows)
        got << QStringLiteral("%1/%2/%3/%4")
                   .arg(q->value(0).toLongLong())
                   .arg(q->value(1).toLongLong())
                   .arg(q->value(2).toString(), q->value(3).toString());
    QCOMPARE(rows, qint64(nodeLogs.size()));
    QCOMPARE(got, expected);

    // Per child, each holder's balance is the node's sum; no balance of anything else.
    qint64 balances = 0;
    for (auto q = r.query(QStringLiteral("SELECT contract, holder, balance FROM token_balances "
                                         "WHERE environment_id = ?"),
                          {env});
         q->next(); ++balances) {
        const QString contract = q->value(0).toString();
        QVERIFY2(sums.contains(contract), qPrintable(contract + " is no child on the node"));
        QCOMPARE(q->value(2).toString(),
                 QString::number(sums[contract].value(q->value(1).toString(), -1)));
    }
    qint64 holders = 0;
    for (const auto& perChild : std::as_const(sums))
        holders += perChild.size();
    QCOMPARE(balances, holders);
    b.close();
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
    // Children at random blocks (some blocks with two, some with none), Transfers through
    // them in their creation block and later; indexed in ranges of 3 blocks, so that most
    // ranges create a child the ranges fetched beside them did not know yet.
    for (int n = 0; n < 14; ++n)
        m_chain->block(m_random.bounded(3), m_random.bounded(3), m_random);
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
    // is retracted, and the retractions delivered: no delivered event whose log is gone
    // lacks its retraction.
    store::ContractReader& r = b.open();
    const QString reorgedAway = QStringLiteral(
        "FROM outbox o WHERE o.environment_id = ? AND o.delivered_at IS NOT NULL AND "
        "o.event_key LIKE 'transfer:%' AND NOT EXISTS (SELECT 1 FROM logs l WHERE "
        "l.environment_id = o.environment_id AND 'transfer:' || l.block_number || ':' || "
        "l.block_hash || ':' || l.log_index = o.event_key)");
    QVERIFY(r.scalar(QStringLiteral("SELECT count(*) ") + reorgedAway, {env}) > 0);
    QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) ") + reorgedAway +
                          QStringLiteral(" AND NOT EXISTS (SELECT 1 FROM outbox x WHERE "
                                         "x.environment_id = o.environment_id AND x.event_key = "
                                         "'retract:' || o.event_key AND x.delivered_at IS NOT "
                                         "NULL)"),
                      {env}),
             qint64(0));
    const qint64 retracted = r.scalar(QStringLiteral("SELECT count(*) FROM outbox WHERE "
                                                     "environment_id = ? AND event_key LIKE "
                                                     "'retract:%'"),
                                      {env});
    b.close();
    QFile lines(outbox);
    QVERIFY(lines.open(QIODevice::ReadOnly));
    QCOMPARE(qint64(lines.readAll().count("\"type\":\"retracted\"")), retracted);
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

    const test::ProcessRun found = test::runForkscope(verifyArgs(db, env));
    QCOMPARE(found.exitCode, 1);
    QVERIFY2(found.out.contains(QStringLiteral("HOLE block %1: missing 1 child of the factory: "
                                               "%2 (log index %3)")
                                    .arg(lost.block)
                                    .arg(lost.address)
                                    .arg(lost.logIndex)),
             qPrintable(found.out));
    QVERIFY2(found.out.contains(
                 QStringLiteral("HOLE block %1: missing 1 log (log index 0)").arg(lastBlock)),
             qPrintable(found.out));

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
