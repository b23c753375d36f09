#pragma once

#include "Address.h"
#include "Hash32.h"

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <cstdint>
#include <utility>

namespace forkscope::chain {

// One mined log as returned by eth_getLogs. Pending logs (null block fields) are
// rejected: the indexer only ever stores logs that belong to a block.
struct LogEntry
{
    Address address;
    QList<Hash32> topics; // 0..4
    QByteArray data;
    std::uint64_t blockNumber = 0;
    Hash32 blockHash;
    Hash32 transactionHash;
    std::uint64_t transactionIndex = 0;
    std::uint64_t logIndex = 0;
    bool removed = false;

    static LogEntry fromJson(const QJsonValue& v, const QString& context);
    // Where it sits on its chain: logs are stored and delivered in this order.
    std::pair<std::uint64_t, std::uint64_t> position() const { return {blockNumber, logIndex}; }

    friend bool operator==(const LogEntry&, const LogEntry&) = default;
};

} // namespace forkscope::chain

Q_DECLARE_METATYPE(forkscope::chain::LogEntry)
