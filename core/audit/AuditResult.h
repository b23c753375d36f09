#pragma once

#include "chain/Hash32.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

namespace forkscope::audit {

// One block whose stored rows are not what the node has: the indexer's claim "every
// matching log up to the checkpoint" is false there.
struct AuditHole
{
    std::uint64_t block = 0;
    bool blockRowMissing = false;  // no `blocks` row although the checkpoint covers it
    qint64 missingLogs = 0;        // the node's logs of ours that `logs` lacks
    qint64 extraLogs = 0;          // stored logs the node does not have
    qint64 missingTransfers = 0;   // Transfer logs without their transfer_events row
    qint64 extraTransfers = 0;     // transfer_events rows without a Transfer log on the node
    qint64 logsOutsideBloom = 0;   // stored logs the header's bloom rules out: corrupt rows
    qint64 logsOfAnotherBlock = 0; // stored logs whose block_hash is not the block's
    qint64 alteredLogs = 0;        // stored logs whose content is not the node's log's
    QList<std::uint64_t> alteredLogIndexes;
    QStringList alteredFields;              // address, topics, data, tx_hash
    QList<std::uint64_t> missingLogIndexes; // the first few, to name them
    QList<std::uint64_t> extraLogIndexes;
    bool rangeAnswerShort = false; // the range answer lacked them too (found by hash or proof)

    // "block 57: missing 3 logs (log index 1, 2, 5), missing 3 transfers"
    QString describe() const;
};

// What one audit checked and found: a value, so the command line prints it and the app
// can show it (a Repair button starts at firstBadBlock()).
struct AuditResult
{
    QString environmentId;
    std::uint64_t chainId = 0;
    QString node;
    std::uint64_t from = 0;
    std::uint64_t to = 0;

    qint64 blocksChecked = 0;       // headers fetched, linked and compared with the stored hash
    qint64 storedBlocks = 0;        // `blocks` rows in the range
    qint64 storedLogs = 0;          // `logs` rows in the range (each also tested against its bloom)
    qint64 storedTransfers = 0;     // `transfer_events` rows in the range
    qint64 nodeLogs = 0;            // the node's logs of the contracts in the range
    qint64 blocksWithLogs = 0;      // blocks where the node or the database has logs of ours
    qint64 getLogsCalls = 0;        // range queries (after any split of the range)
    qint64 bloomSuspects = 0;       // blooms admitting a contract where no log of ours is stored
    qint64 bloomFalsePositives = 0; // of those: the node's every log of the block is not ours
    qint64 byHashFetches = 0;       // eth_getLogs by blockHash (EIP-234)
    QString proofName;              // the BlockLogsProof used, if any
    qint64 provenBlocks = 0;        // blocks compared with that proof's logs

    static constexpr int kMaxHolesKept = 1000; // holes beyond are counted, not kept
    QList<AuditHole> holes;                    // by block, at most kMaxHolesKept
    qint64 holeCount = 0;                      // all of them

    // The first block whose stored hash is not the node's: the chain moved on (a reorg
    // the indexer has not seen yet), which is not a hole. Blocks from there on are not
    // compared.
    std::optional<std::uint64_t> reorgedAt;
    QString reorgedStoredHash; // as stored (a corrupt value is shown as it is)
    chain::Hash32 reorgedNodeHash;
    qint64 reorgedBlocks = 0;

    bool clean() const { return holeCount == 0 && !reorgedAt; }
    // Where a repair should start: the lowest block with a hole.
    std::optional<std::uint64_t> firstHole() const;
    void addHole(const AuditHole& hole);
};

} // namespace forkscope::audit
