#pragma once

#include "chain/Address.h"
#include "chain/Hash32.h"
#include "chain/U256.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace forkscope::rpc {
class JsonRpcClient;
}

namespace forkscope::lab {

// Drives resources/contracts/DemoToken.sol on a devnet through anvil's unlocked accounts:
// deployment, transfers and the "spray" workload used by the demo traffic, the tests and
// the benchmarks. Blocking calls: worker threads and tests only.
class DemoToken
{
public:
    // The first unlocked account of the node (eth_accounts[0]).
    static chain::Address defaultSender(rpc::JsonRpcClient& rpc);

    // Deploys any contract from its creation code (+ encoded constructor arguments); waits
    // for the receipt and returns the new address.
    static chain::Address deployBytecode(rpc::JsonRpcClient& rpc, const chain::Address& from,
                                         const QByteArray& initCode);
    // Sends a transaction and waits until it is mined (throws DevnetError if it reverted).
    static chain::Hash32 sendAndWait(rpc::JsonRpcClient& rpc, const QJsonObject& tx);

    // Deploys a token minting `supply` to `from`; waits for the receipt.
    static DemoToken deploy(rpc::JsonRpcClient& rpc, const chain::Address& from,
                            const QString& name, const QString& symbol, const chain::U256& supply);

    DemoToken(rpc::JsonRpcClient& rpc, chain::Address address, chain::Address sender)
        : m_rpc(&rpc), m_address(address), m_sender(sender)
    {
    }

    const chain::Address& address() const { return m_address; }
    const chain::Address& sender() const { return m_sender; }

    // Each returns the transaction hash; with anvil's automine every call is one block.
    chain::Hash32 transfer(const chain::Address& to, const chain::U256& value);
    chain::Hash32 spray(quint64 count, quint64 offset, quint64 holders);
    // Like spray, of the amounts a token in use moves: 0.01 to 99.99 whole tokens
    // (sprayAmount), for the lab's demo traffic.
    chain::Hash32 sprayAmounts(quint64 count, quint64 offset, quint64 holders);
    // What sprayAmounts sends for index `k` (offset + i), in base units of an 18-decimal
    // token.
    static chain::U256 sprayAmount(quint64 k);

    chain::Hash32 emitTransferMissingTopic(const chain::Address& from, const chain::U256& value);
    chain::Hash32 emitTransferShortData(const chain::Address& from, const chain::Address& to);

    // Calldata, for batching many transactions into one JSON-RPC request.
    static QByteArray transferCalldata(const chain::Address& to, const chain::U256& value);
    static QByteArray sprayCalldata(quint64 count, quint64 offset, quint64 holders);
    static QByteArray sprayAmountsCalldata(quint64 count, quint64 offset, quint64 holders);
    // The holder address spray() uses for index i.
    static chain::Address sprayHolder(quint64 index);

    // A transaction request object (for eth_sendTransaction or anvil_reorg).
    QJsonObject txRequest(const QByteArray& calldata) const;
    chain::Hash32 send(const QByteArray& calldata);

    static QByteArray creationBytecode();
    // The creation code of resources/contracts/<contract>.json, as the engine's resources
    // hold it.
    static QByteArray artefactBytecode(const QString& contract);

    // The lab's workload: `blocks` blocks, each holding one spray(perTx) per token, so the
    // shape is exact (blocks x tokens x perTx Transfers). Holders cycle through
    // sprayHolder(0 .. holders-1) starting at `offset`; returns the next offset. Mined by
    // mineBatchedBlocks: all tokens must share one sender.
    static quint64 sprayBlocks(rpc::JsonRpcClient& rpc, const QList<DemoToken>& tokens, int blocks,
                               int perTx, quint64 holders, quint64 offset);

private:
    rpc::JsonRpcClient* m_rpc;
    chain::Address m_address;
    chain::Address m_sender;
};

} // namespace forkscope::lab
