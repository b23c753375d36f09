#pragma once

#include "chain/Hash32.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

namespace forkscope::audit {

// Rows of one block whose stored columns are not what the node's logs say: how many, the
// first few log indexes and which columns.
struct AlteredRows
{
    qint64 count = 0;
    QList<std::uint64_t> indexes; // the first few, to name them
    QStringList fields;           // each column that differs in one of them, once
    // The first row's stored and expected text, when a field names one (a value).
    QString firstDetail;

    void add(std::uint64_t logIndex, const QStringList& differing, const QString& detail = {});
    bool isEmpty() const { return count == 0; }
};

// How many missing or extra log indexes a hole names: enough to find the rows, short enough
// for one line.
inline constexpr int kIndexesNamed = 8;

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
    AlteredRows alteredLogs;       // address, topics, data, tx_hash not the node's log's
    AlteredRows alteredTransfers;  // contract, from, to, value not what the node's log says
    AlteredRows alteredDecodings;  // event_name, args_json not the log decoded with the ABI
    // The `blocks` row against the node's header: block_hash, parent_hash, block_timestamp.
    QStringList alteredBlockFields;
    // A block_hash that is not the node's while the row above links to the node's block
    // (its parent_hash, or the checkpoint's hash): the row was edited, the chain did not move.
    bool blockHashEdited = false;
    QList<std::uint64_t> missingLogIndexes; // the first few, to name them
    QList<std::uint64_t> extraLogIndexes;
    bool rangeAnswerShort = false; // the range answer lacked them too (found by hash or proof)
    // Children of the source's factories the node's creation events announce here that
    // `factory_children` lacks (or holds otherwise), and stored children the node's factory
    // did not create here: "0x.. (log index 3)".
    QStringList missingChildren;
    QStringList extraChildren;

    // "block 57: missing 3 logs (log index 1, 2, 5), missing 3 transfers"
    QString describe() const;
    bool isEmpty() const;
};

// One token_balances row that is not the sum of its holder's stored Transfers (received
// minus sent; the zero address is not a holder), or, with --balance-of, not what the
// token's balanceOf(holder) answers at the checkpoint.
struct BalanceFinding
{
    enum class Kind {
        Missing,      // Transfers name the holder, yet there is no row
        Extra,        // a row no stored Transfer names
        Differs,      // the row is not the sum
        SidesDiffer,  // the sum is right, transfer_sides is not the count of its sides
        NotBalanceOf, // the row is the sum, but the token's balanceOf says otherwise
        Unsummable,   // a Transfer of the holder has a value that is not a decimal amount
    };
    Kind kind = Kind::Differs;
    QString contract; // 0x hex
    QString holder;
    QString stored;   // the row's balance (empty: no row)
    QString expected; // the sum of the Transfers, or balanceOf's answer
    qint64 storedSides = 0;
    qint64 expectedSides = 0;

    // "contract 0x.. holder 0x..: balance 5 stored, its stored Transfers sum to 7"
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
    qint64 transfersCompared = 0; // stored transfers compared with the node's log (value, parties)
    qint64 decodingsCompared = 0; // stored event_name/args_json compared with the ABI's decoding
    bool decodedLogsUnchecked =
        false;                  // decoded logs are stored, and no ABI was given to check them
    qint64 transfersSummed = 0; // stored transfers summed per holder (the whole checkpoint)
    qint64 balancesChecked = 0; // token_balances rows compared with those sums
    qint64 balanceOfCalls = 0;  // balanceOf(holder) eth_calls at the checkpoint (--balance-of)

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

    static constexpr int kMaxBalanceFindingsKept = 1000;
    QList<BalanceFinding> balanceFindings; // at most kMaxBalanceFindingsKept
    qint64 balanceFindingCount = 0;

    bool clean() const { return holeCount == 0 && !reorgedAt && balanceFindingCount == 0; }
    // Where a repair should start: the lowest block with a hole.
    std::optional<std::uint64_t> firstHole() const;
    void addHole(const AuditHole& hole);
    void addBalanceFinding(const BalanceFinding& finding);
};

} // namespace forkscope::audit
