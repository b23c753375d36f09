#pragma once

// DemoFactory (resources/contracts/DemoFactory.sol) on a lab's anvil: children created at
// chosen blocks, Transfers through them, and the children as the node's logs say, decoded
// here by hand (never by the engine). Header-only, for the suites (as BackendLab.h).
#include "IndexerLab.h"
#include "chain/Keccak.h"
#include "chain/U256.h"
#include "lab/DemoToken.h"
#include "proof/Rlp.h"
#include "rpc/JsonRpcClient.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QtTest>

namespace forkscope::test {

inline const QString kPairCreated = QStringLiteral(
    "PairCreated(address indexed token0, address indexed token1, address pair, uint256)");

inline QByteArray factorySelector(const char* signature)
{
    return chain::keccak256(QByteArray(signature)).toByteArray().left(4);
}

inline QByteArray factoryWord(quint64 v)
{
    return chain::u256::toBigEndian32(chain::U256(v));
}

inline QByteArray factoryWord(const chain::Address& a)
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
inline char* toString(const NodeChild& c)
{
    return QTest::toString(
        QStringLiteral("%1 at block %2, log index %3").arg(c.address).arg(c.block).arg(c.logIndex));
}

// The lab's factory: children at chosen blocks, each followed in its block by a Transfer
// through it, and sprays through the children made before.
class FactoryChain
{
public:
    explicit FactoryChain(IndexerLab& lab) : m_lab(lab)
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
    // How many children the factory has made on the node's branch, as far as this knows.
    qsizetype children() const { return m_children.size(); }

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
                 factorySelector("createPair(address,address,uint256)") +
                     factoryWord(quint64(m_children.size()) + 1) +
                     factoryWord(quint64(m_children.size()) + 2) + factoryWord(quint64(1000000)),
                 2000000);
            ++m_nonce;
            m_children << child;
            send(child,
                 factorySelector("transfer(address,uint256)") +
                     factoryWord(lab::DemoToken::sprayHolder(quint64(random.bounded(5)))) +
                     factoryWord(quint64(1 + random.bounded(9))),
                 200000);
        }
        for (int s = 0; s < sprays && !before.isEmpty(); ++s)
            send(before.at(random.bounded(int(before.size()))),
                 factorySelector("spray(uint256,uint256,uint256)") +
                     factoryWord(quint64(1 + random.bounded(4))) +
                     factoryWord(quint64(random.bounded(100))) + factoryWord(quint64(7)),
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
    IndexerLab& m_lab;
    chain::Address m_sender;
    chain::Address m_factory;
    QList<chain::Address> m_children;
    quint64 m_nonce = 1;
};

} // namespace forkscope::test
