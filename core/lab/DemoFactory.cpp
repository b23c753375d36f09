#include "DemoFactory.h"
#include "DemoToken.h"
#include "DevnetError.h"
#include "chain/Hex.h"
#include "chain/Keccak.h"
#include "chain/U256.h"
#include "proof/Rlp.h"
#include "rpc/JsonRpcClient.h"

#include <QJsonArray>
#include <QJsonObject>

namespace forkscope::lab {

namespace {
QByteArray callSelector(const char* signature)
{
    return chain::keccak256(QByteArray(signature)).toByteArray().left(4);
}

QByteArray abiWord(quint64 v)
{
    return chain::u256::toBigEndian32(chain::U256(v));
}

QByteArray abiWord(const chain::Address& a)
{
    return QByteArray(12, '\0') + a.toByteArray();
}

// A uint256 return value the lab reads back: 32 bytes, small enough for 64 bits.
quint64 uintWord(const QByteArray& data, const QString& what)
{
    if (data.size() != 32 || data.left(24) != QByteArray(24, '\0'))
        throw DevnetError(QStringLiteral("%1: the node returned %2 bytes, not a uint256 word")
                              .arg(what)
                              .arg(data.size()));
    quint64 v = 0;
    for (int i = 24; i < 32; ++i)
        v = (v << 8) | quint8(data[i]);
    return v;
}
} // namespace

const QString& DemoFactory::pairCreatedDeclaration()
{
    static const QString declaration = QStringLiteral(
        "PairCreated(address indexed token0, address indexed token1, address pair, uint256)");
    return declaration;
}

QByteArray DemoFactory::creationBytecode()
{
    return DemoToken::artefactBytecode(QStringLiteral("DemoFactory"));
}

chain::Address DemoFactory::childAddress(quint64 nonce) const
{
    // CREATE: the last 20 bytes of keccak256(rlp([factory, nonce])).
    const QByteArray rlp = proof::rlp::encodeList(
        {proof::rlp::encodeBytes(m_address.toByteArray()), proof::rlp::encodeUint(nonce)});
    return chain::Address::fromBytes(chain::keccak256(rlp).toByteArray().right(20),
                                     QStringLiteral("child"));
}

QByteArray DemoFactory::createPairCalldata(quint64 token0, quint64 token1,
                                           const chain::U256& supply)
{
    return callSelector("createPair(address,address,uint256)") + abiWord(token0) + abiWord(token1) +
           chain::u256::toBigEndian32(supply);
}

QJsonObject DemoFactory::createPairRequest(quint64 token0, quint64 token1,
                                           const chain::U256& supply) const
{
    return QJsonObject{
        {QStringLiteral("to"), m_address.toHex()},
        {QStringLiteral("data"),
         chain::hex::encodeData(createPairCalldata(token0, token1, supply))},
        {QStringLiteral("gas"), QStringLiteral("0x1e8480")}}; // 2M: a DemoPair's deployment
}

DemoFactory DemoFactory::deploy(rpc::JsonRpcClient& rpc, const chain::Address& from)
{
    return DemoFactory(rpc, DemoToken::deployBytecode(rpc, from, creationBytecode()), from);
}

wire::FactorySource DemoFactory::source() const
{
    return wire::FactorySource::resolve(m_address, creationEvent(), QStringLiteral("pair"),
                                        nullptr);
}

QByteArray DemoFactory::call(const QByteArray& calldata)
{
    const QJsonObject tx{{QStringLiteral("to"), m_address.toHex()},
                         {QStringLiteral("data"), chain::hex::encodeData(calldata)}};
    return chain::hex::parseData(
        m_rpc->callBlocking(QStringLiteral("eth_call"), {tx, QStringLiteral("latest")}),
        QStringLiteral("eth_call"));
}

chain::Address DemoFactory::createChild(quint64 supply)
{
    const quint64 n = children();
    // token0/token1 only label the pair: two distinct made-up addresses per child.
    const QByteArray data = callSelector("createPair(address,address,uint256)") +
                            abiWord(DemoToken::sprayHolder(2 * n)) +
                            abiWord(DemoToken::sprayHolder(2 * n + 1)) + abiWord(supply);
    const QJsonObject tx{{QStringLiteral("from"), m_sender.toHex()},
                         {QStringLiteral("to"), m_address.toHex()},
                         {QStringLiteral("data"), chain::hex::encodeData(data)},
                         {QStringLiteral("gas"), QStringLiteral("0x1e8480")}};
    const chain::Hash32 hash = DemoToken::sendAndWait(*m_rpc, tx);
    const QJsonObject receipt =
        m_rpc->callBlocking(QStringLiteral("eth_getTransactionReceipt"), {hash.toHex()}).toObject();
    const wire::FactorySource rule = source();
    for (const QJsonValue& v : receipt.value(QLatin1String("logs")).toArray()) {
        const QJsonObject log = v.toObject();
        if (log.value(QLatin1String("address"))
                .toString()
                .compare(m_address.toHex(), Qt::CaseInsensitive) != 0)
            continue;
        const QJsonArray topics = log.value(QLatin1String("topics")).toArray();
        const QByteArray logData =
            chain::hex::parseData(log.value(QLatin1String("data")), QStringLiteral("log data"));
        if (topics.size() == 3 && logData.size() >= 32 &&
            chain::Hash32::fromJson(topics.first(), QStringLiteral("topic0")) == rule.topic0())
            return chain::Address::fromBytes(logData.mid(12, 20), QStringLiteral("pair"));
    }
    throw DevnetError(
        QStringLiteral("createPair %1 logged no PairCreated event").arg(hash.toHex()));
}

quint64 DemoFactory::children()
{
    return uintWord(call(callSelector("allPairsLength()")), QStringLiteral("allPairsLength()"));
}

bool DemoFactory::transferThroughChild(quint64 k)
{
    const quint64 n = children();
    if (n == 0)
        return false;
    const QByteArray child = call(callSelector("allPairs(uint256)") + abiWord(k % n));
    if (child.size() != 32 || child.left(12) != QByteArray(12, '\0'))
        throw DevnetError(QStringLiteral("allPairs(%1): the node returned %2 bytes, not an "
                                         "address word")
                              .arg(k % n)
                              .arg(child.size()));
    const chain::Address to = chain::Address::fromBytes(child.mid(12), QStringLiteral("pair"));
    const QByteArray data = callSelector("transfer(address,uint256)") +
                            abiWord(DemoToken::sprayHolder(k % 50)) + abiWord(1 + k % 7);
    DemoToken::sendAndWait(*m_rpc,
                           QJsonObject{{QStringLiteral("from"), m_sender.toHex()},
                                       {QStringLiteral("to"), to.toHex()},
                                       {QStringLiteral("data"), chain::hex::encodeData(data)},
                                       {QStringLiteral("gas"), QStringLiteral("0x30d40")}});
    return true;
}

} // namespace forkscope::lab
