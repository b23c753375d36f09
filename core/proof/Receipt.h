#pragma once

#include "chain/ChainParseError.h"
#include "chain/Hash32.h"
#include "chain/LogEntry.h"
#include "chain/LogsBloom.h"

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <cstdint>
#include <variant>

namespace forkscope::proof {

// A receipt of a transaction type Forkscope cannot encode (an L2's deposit type 0x7e,
// Arbitrum's 0x64..): not a malformed reply, only one this build cannot prove.
class UnsupportedReceiptType : public chain::ChainParseError
{
public:
    using chain::ChainParseError::ChainParseError;
};

// One transaction receipt as eth_getBlockReceipts returns it, reduced to what the receipts
// trie commits to (type, outcome, cumulative gas, bloom, logs) plus the fields that place it
// in its block. Parsing is strict: anything missing or malformed is a ChainParseError naming
// the field, so a node's bad reply is never read as a smaller set of logs.
struct Receipt
{
    // EIP-2718 transaction types whose receipts Forkscope can encode; fromJson throws
    // UnsupportedReceiptType, naming the type, for any other.
    static constexpr std::uint8_t kLegacy = 0x0;
    static constexpr std::uint8_t kAccessList = 0x1; // EIP-2930
    static constexpr std::uint8_t kDynamicFee = 0x2; // EIP-1559
    static constexpr std::uint8_t kBlob = 0x3;       // EIP-4844
    static constexpr std::uint8_t kSetCode = 0x4;    // EIP-7702
    static constexpr std::uint8_t kHighestType = kSetCode;

    std::uint8_t type = kLegacy;
    // Since Byzantium (EIP-658) a status (true = success); before it, the state root after
    // the transaction.
    std::variant<bool, chain::Hash32> outcome = true;
    std::uint64_t cumulativeGasUsed = 0;
    chain::LogsBloom logsBloom;
    QList<chain::LogEntry> logs; // as the node sent them, logIndex included
    chain::Hash32 transactionHash;
    std::uint64_t transactionIndex = 0;
    chain::Hash32 blockHash;
    std::uint64_t blockNumber = 0;

    // `context` prefixes field names in errors ("eth_getBlockReceipts[3].logs[0].data").
    // Throws ChainParseError (UnsupportedReceiptType for a type above kHighestType).
    static Receipt fromJson(const QJsonValue& v, const QString& context);

    // The bytes the receipts trie stores (EIP-2718): rlp([outcome, cumulativeGasUsed,
    // logsBloom, logs]) for a legacy receipt, the type byte followed by the same for a typed
    // one.
    QByteArray consensusEncoding() const;

    friend bool operator==(const Receipt&, const Receipt&) = default;
};

// rlp([address, [topics...], data]): a log as receipts commit to it.
QByteArray encodeLog(const chain::LogEntry& log);

} // namespace forkscope::proof
