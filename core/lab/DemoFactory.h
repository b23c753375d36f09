#pragma once

#include "chain/Address.h"
#include "chain/U256.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

namespace forkscope::rpc {
class JsonRpcClient;
}

namespace forkscope::lab {

// resources/contracts/DemoFactory.sol on a devnet: a factory whose createPair deploys a
// DemoPair token (minting in its constructor, before the factory's PairCreated event).
// A DemoPair answers DemoToken's transferCalldata and sprayCalldata. For the tests and the
// benchmarks; blocking calls.
class DemoFactory
{
public:
    // The creation event as Solidity declares it (for --factory-event).
    static const QString& pairCreatedDeclaration();

    // Deploys a factory from `from` (an unlocked account); waits for the receipt.
    static DemoFactory deploy(rpc::JsonRpcClient& rpc, const chain::Address& from);

    const chain::Address& address() const { return m_address; }

    // The address of the child the factory's CREATE number `nonce` gives: its first child
    // has nonce 1 (EIP-161), the n-th nonce n.
    chain::Address childAddress(quint64 nonce) const;

    // createPair(token0, token1, supply): a child minting `supply` to the caller, with its
    // two tokens given as small numbers (they are only logged).
    static QByteArray createPairCalldata(quint64 token0, quint64 token1, const chain::U256& supply);
    // A transaction request to the factory (no sender or nonce), with gas for one child.
    QJsonObject createPairRequest(quint64 token0, quint64 token1, const chain::U256& supply) const;

    static QByteArray creationBytecode();

private:
    explicit DemoFactory(chain::Address address) : m_address(address) {}
    chain::Address m_address;
};

} // namespace forkscope::lab
