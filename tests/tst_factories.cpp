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
#include "chain/Keccak.h"
#include "lab/DemoToken.h"
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

namespace {

const QString kEvent = QStringLiteral(
    "PairCreated(address indexed token0, address indexed token1, address pair, uint256)");

QByteArray selector(const char* signature)
{
    return chain::keccak256(QByteArray(signature)).toByteArray().left(4);
}

QByteArray word(quint64 v)
{
    return chain::u256::toBigEndian32(chain::U256(v));
}

QByteArray word(const chain::Address& a)
{
    return QByteArray(12, '\0') + a.toByteArray();
}

// A child of DemoFactory, as the node's logs say it (decoded here, not by the engine).
struct NodeChild
{
    QString address;
    qint64 block = 0;
    qint64 logIndex = 0;
    friend bool operator==(const NodeChild&, const NodeChild&) = default;
};

// How QCOMPARE shows one.
char* toString(const NodeChild& c)
{
    return QTest::toString(
        QStringLiteral("%1 at block %2, log index %3").arg(c.address).arg(c.block).arg(c.logIndex));
}

// The lab's factory: children at chosen blocks, each followed in its block by a Transfer
// through it, and sprays through the children made before.
class FactoryChain
{
public:
    explicit FactoryChain(test::IndexerLab& lab) : m_lab(lab)
    {
        QFile f(QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoFactory.json"));
        if (!f.open(QIODevice::ReadOnly))
            qFatal("DemoFactory.json is missing");
        const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
        const QByteArray code =
            QByteArray::fromHex(o.value(QStringLiteral("bytecode")).toString().mid(2).toLatin1());
        m_sender = lab::DemoToken::defaultSender(lab.rpc());
        m_factory = lab::DemoToken::deployBytecode(lab.rpc(), m_sender, code);
    }

    const chain::Address& factory() const { return m_factory; }

    // The address the factory's next CREATE gives (its nonce starts at 1, EIP-161).
    chain::Address nextChild() const
    {
        const QByteArray rlp = proof::rlp::encodeList(
            {proof::rlp::encodeBytes(m_factory.toByteArray()), proof::rlp::encodeUint(m_nonce)});
        return chain::Address::fromBytes(chain::keccak256(rlp).toByteArray().right(20),
                                         QStringLiteral("child"));
    }

    // One block: `creations` children, each with a Transfer through it right after its
    // creation, then `sprays` spray transactions through children made before.
    void block(int creations, int sprays, QRandomGenerator& random)
    {
        m_lab.rpc().callBlocking(QStringLiteral("evm_setAutomine"), {false});
        QStringList sent;
        const auto send = [&](const chain::Address& to, const QByteArray& data, int gas) {
            const QJsonObject tx{
                {QStringLiteral("from"), m_sender.toHex()},
                {QStringLiteral("to"), to.toHex()},
                {QStringLiteral("data"), QStringLiteral("0x") + QString::fromLatin1(data.toHex())},
                {QStringLiteral("gas"), QStringLiteral("0x%1").arg(gas, 0, 16)}};
            sent
                << m_lab.rpc().callBlocking(QStringLiteral("eth_sendTransaction"), {tx}).toString();
        };
        const QList<chain::Address> before = m_children;
        for (int c = 0; c < creations; ++c) {
            const chain::Address child = nextChild();
            send(m_factory,
                 selector("createPair(address,address,uint256)") +
                     word(quint64(m_children.size()) + 1) + word(quint64(m_children.size()) + 2) +
                     word(quint64(1000000)),
                 2000000);
            ++m_nonce;
            m_children << child;
            send(child,
                 selector("transfer(address,uint256)") +
                     word(lab::DemoToken::sprayHolder(quint64(random.bounded(5)))) +
                     word(quint64(1 + random.bounded(9))),
                 200000);
        }
        for (int s = 0; s < sprays && !before.isEmpty(); ++s)
            send(before.at(random.bounded(int(before.size()))),
                 selector("spray(uint256,uint256,uint256)") + word(quint64(1 + random.bounded(4))) +
                     word(quint64(random.bounded(100))) + word(7),
                 500000);
        m_lab.rpc().callBlocking(QStringLiteral("evm_mine"));
        m_lab.rpc().callBlocking(QStringLiteral("evm_setAutomine"), {true});
        for (const QString& hash : sent) {
            const QJsonObject receipt =
                m_lab.rpc()
                    .callBlocking(QStringLiteral("eth_getTransactionReceipt"), {hash})
                    .toObject();
            QVERIFY2(receipt.value(QStringLiteral("status")).toString() == QLatin1String("0x1"),
                     qPrintable(QStringLiteral("transaction %1 reverted or was not mined: %2")
                                    .arg(hash, QJsonDocument(receipt).toJson())));
        }
    }

    // After a reorg: the children and the factory's nonce as the node's branch has them.
    void readNode()
    {
        m_children.clear();
        for (const NodeChild& c : nodeChildren(m_lab.eth().blockNumber()))
            m_children << chain::Address::fromHex(c.address, QStringLiteral("child"));
        m_nonce = quint64(m_children.size()) + 1;
    }

    // The factory's creation events up to `to`, decoded by hand: topic0 PairCreated, two
    // indexed tokens, the pair in the first data word.
    QList<NodeChild> nodeChildren(quint64 to)
    {
        rpc::LogFilter f = rpc::LogFilter::range(0, to, {m_factory});
        f.topics = {{chain::eventTopic(QStringLiteral("PairCreated(address,address,address,"
                                                      "uint256)"))}};
        QList<NodeChild> out;
        for (const chain::LogEntry& log : m_lab.eth().getLogs(f))
            out << NodeChild{QStringLiteral("0x") +
                                 QString::fromLatin1(log.data.mid(12, 20).toHex()),
                             qint64(log.blockNumber), qint64(log.logIndex)};
        return out;
    }

private:
    test::IndexerLab& m_lab;
    chain::Address m_sender;
    chain::Address m_factory;
    QList<chain::Address> m_children;
    quint64 m_nonce = 1;
};

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
