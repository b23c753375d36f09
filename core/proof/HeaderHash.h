#pragma once

#include "chain/BlockHeader.h"
#include "chain/Hash32.h"

#include <QJsonValue>
#include <QString>

namespace forkscope::proof {

// keccak256(rlp(header fields)) from an eth_getBlockBy* result: parentHash, sha3Uncles,
// miner, stateRoot, transactionsRoot, receiptsRoot, logsBloom, difficulty, number, gasLimit,
// gasUsed, timestamp, extraData, mixHash, nonce, then the fields later forks appended, in
// fork order, when present: baseFeePerGas (London), withdrawalsRoot (Shanghai),
// blobGasUsed, excessBlobGas, parentBeaconBlockRoot (Cancun), requestsHash (Prague).
// Ethereum's header layout: chains with another (Polygon PoS, BSC, Arbitrum...) will not
// match. Throws ChainParseError naming the field (prefixed with `context`) when one is
// missing, malformed, or present after a missing optional one.
chain::Hash32 computeHeaderHash(const QJsonValue& block, const QString& context);

// Whether a header's fields hash to the hash it claims: what makes its logsBloom and
// receiptsRoot commitments of that block rather than a node's say-so.
struct HeaderHashCheck
{
    bool ok = false;
    QString problem;           // one line, empty when ok
    chain::BlockHeader header; // parsed; meaningful when ok
    chain::Hash32 computed;    // the recomputed hash (zero if a field was unreadable)
};
HeaderHashCheck verifyHeaderHash(const QJsonValue& block, const QString& context);

} // namespace forkscope::proof
