#pragma once

#include "CompletenessCheck.h"
#include "abi/EventRegistry.h"
#include "chain/BlockHeader.h"
#include "chain/LogEntry.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <cstdint>

namespace forkscope::wire {

// What the fetcher may assert about a batch: the source and the configuration it fetched
// with. Which processor version runs is the receiver's own business (docs/design.md, "The
// wire: the receiver owns the cursor").
struct WireContext
{
    QString source;
    QString config; // a digest of the contracts (and ABI) the logs were filtered by
    friend bool operator==(const WireContext&, const WireContext&) = default;
};

// A contiguous block range as the fetcher saw it. Completeness is an invariant, not a
// flag: `logs` holds EVERY matching log of [fromBlock, toBlock]; a fetcher that could not
// get them all lowers toBlock instead of sending a partial range. No reorg markers cross
// the wire; the receiver derives reorgs. `headers` (one per block of the range) let the
// receiver check parent linkage and each log's block hash.
struct WireBatch
{
    WireContext context;
    std::uint64_t fromBlock = 0;
    std::uint64_t toBlock = 0;
    std::uint64_t latestBlock = 0; // the node's head when the batch was fetched
    QList<chain::BlockHeader> headers;
    QList<chain::LogEntry> logs; // sorted by (blockNumber, logIndex)
    // The ABI decoding of each log (same index as `logs`); empty without an ABI.
    QList<abi::EventDecoding> decodings;
    // The children of the source's factories the logs were fetched for (every one known to
    // be created up to toBlock); the receiver refuses a batch that misses one.
    QList<chain::Address> fetchedChildren;
    int halvings = 0;               // how often a result cap made the fetcher halve the range
    int logCalls = 0;               // eth_getLogs calls the range took (LogFetcher::rangeLogs)
    CompletenessStats completeness; // what proving the range complete took
};

} // namespace forkscope::wire

Q_DECLARE_METATYPE(forkscope::wire::WireBatch)
