#pragma once

#include "Hash32.h"

#include <QJsonValue>
#include <cstdint>

namespace forkscope::chain {

// The part of a block header the indexer relies on: identity and linkage.
struct BlockHeader
{
    std::uint64_t number = 0;
    Hash32 hash;
    Hash32 parentHash;
    std::uint64_t timestamp = 0;

    // Parses an eth_getBlockBy* result object. `context` prefixes field names in errors
    // ("block 0x10.parentHash"). A null result is not a header: callers decide what an
    // absent block means (see EthClient), so null is rejected here.
    static BlockHeader fromJson(const QJsonValue& v, const QString& context);

    friend bool operator==(const BlockHeader&, const BlockHeader&) = default;
};

} // namespace forkscope::chain

Q_DECLARE_METATYPE(forkscope::chain::BlockHeader)
