#include "DemoToken.h"
#include "BatchedBlocks.h"
#include "DevnetError.h"
#include "chain/Hex.h"
#include "chain/Keccak.h"
#include "rpc/JsonRpcClient.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QThread>

namespace forkscope::lab {

namespace {
QByteArray selector(const char* signature)
{
    return chain::keccak256(QByteArray(signature)).toByteArray().left(4);
}

QByteArray word(const chain::U256& v)
{
    return chain::u256::toBigEndian32(v);
}

QByteArray word(const chain::Address& a)
{
    return QByteArray(12, '\0') + a.toByteArray();
}

QByteArray stringTail(const QString& s)
{
    const QByteArray utf8 = s.toUtf8();
    QByteArray out = word(chain::U256(utf8.size())) + utf8;
    out += QByteArray((32 - utf8.size() % 32) % 32, '\0');
    return out;
}

chain::Hash32 waitMined(rpc::JsonRpcClient& rpc, const QJsonValue& txHash)
{
    const auto hash = chain::Hash32::fromJson(txHash, QStringLiteral("transaction hash"));
    // anvil automines synchronously; poll briefly anyway for interval-mined devnets.
    for (int i = 0; i < 600; ++i) {
        const QJsonValue receipt =
            rpc.callBlocking(QStringLiteral("eth_getTransactionReceipt"), {hash.toHex()});
        if (receipt.isObject()) {
            if (receipt.toObject().value(QLatin1String("status")).toString() !=
                QLatin1String("0x1"))
                throw DevnetError(QStringLiteral("transaction %1 reverted").arg(hash.toHex()));
            return hash;
        }
        QThread::msleep(50);
    }
    throw DevnetError(QStringLiteral("transaction %1 was not mined within 30 s").arg(hash.toHex()));
}
} // namespace

QByteArray DemoToken::artefactBytecode(const QString& contract)
{
    QFile f(QStringLiteral(":/forkscope/contracts/%1.json").arg(contract));
    if (!f.open(QIODevice::ReadOnly))
        throw DevnetError(
            QStringLiteral("the %1 artefact is missing from the resources").arg(contract));
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    return chain::hex::parseData(o.value(QLatin1String("bytecode")), QStringLiteral("bytecode"));
}

QByteArray DemoToken::creationBytecode()
{
    return artefactBytecode(QStringLiteral("DemoToken"));
}

chain::Address DemoToken::defaultSender(rpc::JsonRpcClient& rpc)
{
    const QJsonArray accounts = rpc.callBlocking(QStringLiteral("eth_accounts")).toArray();
    if (accounts.isEmpty())
        throw DevnetError(QStringLiteral("the node has no unlocked accounts (is it anvil?)"));
    return chain::Address::fromJson(accounts.first(), QStringLiteral("eth_accounts[0]"));
}

DemoToken DemoToken::deploy(rpc::JsonRpcClient& rpc, const chain::Address& from,
                            const QString& name, const QString& symbol, const chain::U256& supply)
{
    // constructor(string, string, uint256): two offsets, the supply, then both strings.
    const QByteArray nameTail = stringTail(name);
    QByteArray args =
        word(chain::U256(96)) + word(chain::U256(96 + nameTail.size())) + word(supply);
    args += nameTail + stringTail(symbol);
    return DemoToken(rpc, deployBytecode(rpc, from, creationBytecode() + args), from);
}

chain::Hash32 DemoToken::sendAndWait(rpc::JsonRpcClient& rpc, const QJsonObject& tx)
{
    return waitMined(rpc, rpc.callBlocking(QStringLiteral("eth_sendTransaction"), {tx}));
}

chain::Address DemoToken::deployBytecode(rpc::JsonRpcClient& rpc, const chain::Address& from,
                                         const QByteArray& initCode)
{
    const QJsonObject tx{{QStringLiteral("from"), from.toHex()},
                         {QStringLiteral("data"), chain::hex::encodeData(initCode)},
                         {QStringLiteral("gas"), QStringLiteral("0x4c4b40")}};
    const auto hash = sendAndWait(rpc, tx);
    const QJsonObject receipt =
        rpc.callBlocking(QStringLiteral("eth_getTransactionReceipt"), {hash.toHex()}).toObject();
    return chain::Address::fromJson(receipt.value(QLatin1String("contractAddress")),
                                    QStringLiteral("contractAddress"));
}

QJsonObject DemoToken::txRequest(const QByteArray& calldata) const
{
    return QJsonObject{{QStringLiteral("from"), m_sender.toHex()},
                       {QStringLiteral("to"), m_address.toHex()},
                       {QStringLiteral("data"), chain::hex::encodeData(calldata)},
                       // 3M gas: several fit in one 30M block, so batches mine promptly.
                       {QStringLiteral("gas"), QStringLiteral("0x2dc6c0")}};
}

chain::Hash32 DemoToken::send(const QByteArray& calldata)
{
    return waitMined(
        *m_rpc, m_rpc->callBlocking(QStringLiteral("eth_sendTransaction"), {txRequest(calldata)}));
}

QByteArray DemoToken::transferCalldata(const chain::Address& to, const chain::U256& value)
{
    return selector("transfer(address,uint256)") + word(to) + word(value);
}

QByteArray DemoToken::sprayCalldata(quint64 count, quint64 offset, quint64 holders)
{
    return selector("spray(uint256,uint256,uint256)") + word(chain::U256(count)) +
           word(chain::U256(offset)) + word(chain::U256(holders));
}

namespace {
// One whole token of DemoToken.sol (18 decimals).
const chain::U256& oneToken()
{
    static const chain::U256 unit("1000000000000000000");
    return unit;
}
} // namespace

QByteArray DemoToken::sprayAmountsCalldata(quint64 count, quint64 offset, quint64 holders)
{
    return selector("sprayAmounts(uint256,uint256,uint256,uint256)") + word(chain::U256(count)) +
           word(chain::U256(offset)) + word(chain::U256(holders)) + word(oneToken());
}

chain::U256 DemoToken::sprayAmount(quint64 k)
{
    // DemoToken.sol: (1 + (k * 2654435761) % 9999) * unit / 100, in 256-bit arithmetic.
    const chain::U256 cents = 1 + (chain::U256(k) * 2654435761ULL) % 9999;
    return cents * oneToken() / 100;
}

chain::Hash32 DemoToken::sprayAmounts(quint64 count, quint64 offset, quint64 holders)
{
    return send(sprayAmountsCalldata(count, offset, holders));
}

chain::Address DemoToken::sprayHolder(quint64 index)
{
    return chain::Address::fromBytes(word(chain::U256(0x100000 + index)).mid(12),
                                     QStringLiteral("holder"));
}

quint64 DemoToken::sprayBlocks(rpc::JsonRpcClient& rpc, const QList<DemoToken>& tokens, int blocks,
                               int perTx, quint64 holders, quint64 offset)
{
    if (tokens.isEmpty())
        return offset;
    mineBatchedBlocks(rpc, tokens.first().sender(), blocks, [&](int) {
        QList<QJsonObject> txs;
        for (const auto& t : tokens) {
            txs << t.txRequest(sprayCalldata(quint64(perTx), offset, holders));
            offset += quint64(perTx);
        }
        return txs;
    });
    return offset;
}

chain::Hash32 DemoToken::transfer(const chain::Address& to, const chain::U256& value)
{
    return send(transferCalldata(to, value));
}

chain::Hash32 DemoToken::spray(quint64 count, quint64 offset, quint64 holders)
{
    return send(sprayCalldata(count, offset, holders));
}

chain::Hash32 DemoToken::emitTransferMissingTopic(const chain::Address& from,
                                                  const chain::U256& value)
{
    return send(selector("emitTransferMissingTopic(address,uint256)") + word(from) + word(value));
}

chain::Hash32 DemoToken::emitTransferShortData(const chain::Address& from, const chain::Address& to)
{
    return send(selector("emitTransferShortData(address,address)") + word(from) + word(to));
}

} // namespace forkscope::lab
