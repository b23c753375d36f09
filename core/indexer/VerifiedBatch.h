#pragma once

#include "abi/EventRegistry.h"
#include "chain/BlockHeader.h"
#include "chain/LogEntry.h"
#include "wire/FactorySource.h"

#include <QList>
#include <optional>

namespace forkscope::indexer {

// A contiguous run of blocks whose parent hashes link, with every matching log of those
// blocks (each log's blockHash checked against its header): what the engine hands a store
// to commit.
struct VerifiedBatch
{
    QList<chain::BlockHeader> blocks;
    QList<chain::LogEntry> logs;
    QList<abi::EventDecoding> decodings; // parallel to logs, or empty
    // The children of the source's factories these blocks create (their creation events are
    // among `logs`): stored with the blocks, removed with them by a rollback.
    QList<wire::ChildCreation> children;
};

// What one commit wrote.
struct CommitStats
{
    qint64 blocks = 0;
    qint64 logs = 0;
    qint64 transfers = 0;
    qint64 decodeFailures = 0;
    qint64 outboxRows = 0; // outbox rows the batch enqueued
    qint64 abiDecoded = 0;
    qint64 abiUnmatched = 0; // anonymous events and logs no ABI entry describes: kept raw
    qint64 abiFailures = 0;
    qint64 children = 0; // children of the source's factories the batch discovered
    // Where the checkpoint stands after the commit: the batch's last block when it continued
    // the checkpoint; with several writers, wherever the finished prefix reaches (a range
    // committed above a gap moves it nowhere yet).
    std::optional<std::uint64_t> checkpoint;
};

} // namespace forkscope::indexer
