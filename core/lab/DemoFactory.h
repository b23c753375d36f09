#pragma once

#include "chain/Address.h"
#include "chain/Hash32.h"
#include "chain/U256.h"
#include "wire/FactorySource.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace forkscope::rpc {
class JsonRpcClient;
}

namespace forkscope::lab {

// Drives resources/contracts/DemoFactory.sol on a devnet through anvil's unlocked accounts:
// the lab's demo factory, whose children (DemoPair tokens, each minting in its constructor,
// before the factory's PairCreated event) are indexed from their creation events. A DemoPair
// answers DemoToken's transferCalldata and sprayCalldata. Blocking calls: worker threads,
// tests and benchmarks only.
class DemoFactory
{
public:
    // The creation event DemoFactory emits, as Uniswap V2's factory declares it.
    static const QString& pairCreatedDeclaration();
    static QString creationEvent() { return pairCreatedDeclaration(); }
    static QByteArray creationBytecode();
    // Deploys a factory from `from`; waits for the receipt.
    static DemoFactory deploy(rpc::JsonRpcClient& rpc, const chain::Address& from);

    DemoFactory(rpc::JsonRpcClient& rpc, chain::Address address, chain::Address sender)
        : m_rpc(&rpc), m_address(address), m_sender(sender)
    {
    }

    const chain::Address& address() const { return m_address; }
    // The factory source that indexes this factory's children (child argument "pair").
    wire::FactorySource source() const;

    // The address of the child the factory's CREATE number `nonce` gives: its first child
    // has nonce 1 (EIP-161), the n-th nonce n.
    chain::Address childAddress(quint64 nonce) const;
    // createPair(token0, token1, supply): a child minting `supply` to the caller, with its
    // two tokens given as small numbers (they are only logged).
    static QByteArray createPairCalldata(quint64 token0, quint64 token1, const chain::U256& supply);
    // A transaction request to the factory (no sender or nonce), with gas for one child.
    QJsonObject createPairRequest(quint64 token0, quint64 token1, const chain::U256& supply) const;

    // One transaction (one block with automine): a new child whose whole supply goes to the
    // sender. Returns the child's address, read from the creation event of the receipt.
    chain::Address createChild(quint64 supply);
    // How many children the factory holds on the node's current branch (allPairsLength()).
    quint64 children();
    // A Transfer through child `k % children()` to one of the spray holders; nothing when
    // the factory has no child yet. Returns whether one was sent.
    bool transferThroughChild(quint64 k);

private:
    QByteArray call(const QByteArray& calldata);

    rpc::JsonRpcClient* m_rpc;
    chain::Address m_address;
    chain::Address m_sender;
};

} // namespace forkscope::lab
