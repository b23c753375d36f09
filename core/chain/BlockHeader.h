#pragma once

#include "Hash32.h"
#include "LogsBloom.h"

#include <QJsonValue>
#include <cstdint>

namespace forkscope::chain {

// The part of a block header the indexer relies on: identity and linkage, and the two
// commitments to the block's logs that completeness is checked against (the bloom of every
// log's address and topics, and the root of the receipts trie).
struct BlockHeader
{
    std::uint64_t number = 0;
    Hash32 hash;
    Hash32 parentHash;
    std::uint64_t timestamp = 0;
    LogsBloom logsBloom;
    Hash32 receiptsRoot;

    // Parses an eth_getBlockBy* result object. `context` prefixes field names in errors
    // ("block 0x10.parentHash"). A null result is not a header: callers decide what an
    // absent block means (see EthClient), so null is rejected here.
    static BlockHeader fromJson(const QJsonValue& v, const QString& context);

    friend bool operator==(const BlockHeader&, const BlockHeader&) = default;
};

} // namespace forkscope::chain

Q_DECLARE_METATYPE(forkscope::chain::BlockHeader)
