#include "BatchedBlocks.h"
#include "DevnetError.h"
#include "chain/Hex.h"
#include "rpc/JsonRpcClient.h"

namespace forkscope::lab {

namespace {
quint64 transactionCount(rpc::JsonRpcClient& rpc, const chain::Address& sender, const char* tag)
{
    return chain::hex::parseQuantityU63(
        rpc.callBlocking(QStringLiteral("eth_getTransactionCount"),
                         {sender.toHex(), QString::fromLatin1(tag)}),
        QStringLiteral("nonce"));
}
} // namespace

void mineBatchedBlocks(rpc::JsonRpcClient& rpc, const chain::Address& sender, int blocks,
                       const std::function<QList<QJsonObject>(int block)>& transactionsOf)
{
    quint64 nonce = transactionCount(rpc, sender, "pending");
    rpc.callBlocking(QStringLiteral("evm_setAutomine"), {false});
    for (int i = 0; i < blocks; ++i) {
        QList<rpc::RpcRequest> reqs;
        for (QJsonObject tx : transactionsOf(i)) {
            tx.insert(QStringLiteral("from"), sender.toHex());
            tx.insert(QStringLiteral("nonce"), chain::hex::encodeQuantity(nonce++));
            reqs.append({QStringLiteral("eth_sendTransaction"), {tx}});
        }
        for (const auto& r : rpc.batchBlocking(reqs))
            if (!r.ok()) {
                rpc.callBlocking(QStringLiteral("evm_setAutomine"), {true});
                throw rpc::RpcException(*r.error);
            }
        // A separate call: batch entries may be served in any order, and the block must
        // come after its transactions reached the pool.
        rpc.callBlocking(QStringLiteral("evm_mine"));
    }
    rpc.callBlocking(QStringLiteral("evm_setAutomine"), {true});
    const quint64 mined = transactionCount(rpc, sender, "latest");
    if (mined != nonce)
        throw DevnetError(QStringLiteral("batched transactions were not all mined (%1 of %2)")
                              .arg(mined)
                              .arg(nonce));
}

} // namespace forkscope::lab
