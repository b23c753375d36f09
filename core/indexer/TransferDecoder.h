#pragma once

#include "chain/Address.h"
#include "chain/LogEntry.h"
#include "chain/U256.h"

#include <QString>
#include <variant>

namespace forkscope::indexer {

struct Transfer
{
    chain::Address contract;
    chain::Address from;
    chain::Address to;
    chain::U256 value;
};

// Why a log with the Transfer topic was not turned into a transfer. It stays in `logs`
// with this reason; it is never guessed into a balance.
struct TransferDecodeFailure
{
    QString reason;
};

struct NotATransfer
{
};

using TransferDecodeResult = std::variant<NotATransfer, Transfer, TransferDecodeFailure>;

// ERC-20 Transfer(address indexed from, address indexed to, uint256 value): exactly three
// topics, 32 bytes of data, and address topics whose upper 12 bytes are zero. ERC-721's
// Transfer (four topics) is therefore a failure, not a token amount.
TransferDecodeResult decodeTransfer(const chain::LogEntry& log);

const chain::Hash32& transferTopic();

} // namespace forkscope::indexer
