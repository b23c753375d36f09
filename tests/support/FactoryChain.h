#pragma once

// DemoFactory (resources/contracts/DemoFactory.sol) on a lab's anvil: children created at
// chosen blocks, Transfers through them, and the children as the node's logs say, decoded
// here by hand (never by the engine). Header-only, for the suites (as BackendLab.h).
#include "IndexerLab.h"
#include "chain/Keccak.h"
#include "chain/U256.h"
#include "lab/DemoFactory.h"
#include "lab/DemoToken.h"
#include "rpc/JsonRpcClient.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QtTest>

namespace forkscope::test {

inline const QString& kPairCreated = lab::DemoFactory::pairCreatedDeclaration();

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
    explicit FactoryChain(IndexerLab& lab)
        : m_lab(lab), m_sender(lab::DemoToken::defaultSender(lab.rpc())),
          m_factory(lab::DemoFactory::deploy(lab.rpc(), m_sender))
    {
    }

    const chain::Address& factory() const { return m_factory.address(); }
    // How many children the factory has made on the node's branch, as far as this knows.
    qsizetype children() const { return m_children.size(); }

    // The address the factory's next CREATE gives.
    chain::Address nextChild() const { return m_factory.childAddress(m_nonce); }

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
            send(m_factory.address(),
                 lab::DemoFactory::createPairCalldata(quint64(m_children.size()) + 1,
                                                      quint64(m_children.size()) + 2,
                                                      chain::U256(1000000)),
                 2000000);
            ++m_nonce;
            m_children << child;
            send(child,
                 lab::DemoToken::transferCalldata(
                     lab::DemoToken::sprayHolder(quint64(random.bounded(5))),
                     chain::U256(quint64(1 + random.bounded(9)))),
                 200000);
        }
        for (int s = 0; s < sprays && !before.isEmpty(); ++s)
            send(before.at(random.bounded(int(before.size()))),
                 lab::DemoToken::sprayCalldata(quint64(1 + random.bounded(4)),
                                               quint64(random.bounded(100)), 7),
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
        rpc::LogFilter f = rpc::LogFilter::range(0, to, {m_factory.address()});
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
    lab::DemoFactory m_factory;
    QList<chain::Address> m_children;
    quint64 m_nonce = 1;
};

} // namespace forkscope::test
