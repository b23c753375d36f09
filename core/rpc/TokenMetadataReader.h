#pragma once

#include "chain/Address.h"
#include "chain/TokenAmount.h"

#include <QByteArray>
#include <optional>

namespace forkscope::rpc {

class EthClient;

// Reads an ERC-20's decimals() and symbol() by eth_call. Both are optional in ERC-20, and a
// node is not trusted: a reply that is not what the standard says (a revert, no code, a
// word above 77, a symbol that is not short printable text) gives no metadata, and the
// window shows raw units rather than a guess.
class TokenMetadataReader
{
public:
    // nullopt when the token's metadata is unusable; `why` says what was wrong. Transport
    // failures throw RpcException (the caller may ask again later).
    static std::optional<chain::TokenInfo> read(EthClient& eth, const chain::Address& token,
                                                QString* why = nullptr);

    // The pure halves, tested on their own.
    // A uint8 ABI word: 32 bytes, value 0..77.
    static std::optional<int> decodeDecimals(const QByteArray& reply);
    // An ABI string (offset, length, bytes), or a bytes32 padded with zeros (older tokens,
    // e.g. MKR). At most 32 printable characters; otherwise nullopt.
    static std::optional<QString> decodeSymbol(const QByteArray& reply);
};

} // namespace forkscope::rpc
