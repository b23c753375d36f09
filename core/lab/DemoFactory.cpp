#include "DemoFactory.h"
#include "DemoToken.h"
#include "chain/Hex.h"
#include "chain/Keccak.h"
#include "proof/Rlp.h"

namespace forkscope::lab {

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

DemoFactory DemoFactory::deploy(rpc::JsonRpcClient& rpc, const chain::Address& from)
{
    return DemoFactory(DemoToken::deployBytecode(rpc, from, creationBytecode()));
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
    const auto word = [](const chain::U256& v) { return chain::u256::toBigEndian32(v); };
    return chain::keccak256(QByteArrayLiteral("createPair(address,address,uint256)"))
               .toByteArray()
               .left(4) +
           word(chain::U256(token0)) + word(chain::U256(token1)) + word(supply);
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

} // namespace forkscope::lab
