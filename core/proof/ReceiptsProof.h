#pragma once

#include "chain/BlockHeader.h"
#include "chain/LogEntry.h"
#include "chain/ParsedJson.h"

#include <QJsonValue>
#include <QList>
#include <QString>

namespace forkscope::proof {

// What a block's receipts prove about its logs. When `ok`, `logs` is every log of the block,
// in block order, exactly as the header commits to it: nothing a node could omit, add or
// alter without also changing the receiptsRoot, and so the block hash.
struct ReceiptsVerdict
{
    // The first check that failed; a caller counting lies by kind can switch on it.
    enum class Failure {
        None,
        Malformed,    // not an array of well-formed receipts (the field is named)
        Unsupported,  // a receipt type this build cannot encode: unproven, not a lie
        WrongBlock,   // a receipt or log names another block
        Misnumbered,  // transactionIndex or logIndex out of sequence, or a log's tx differs
        ReceiptBloom, // a receipt's logsBloom is not the bloom of its logs
        BlockBloom,   // the receipts' blooms do not OR to the header's logsBloom
        ReceiptsRoot, // the receipts trie root is not the header's receiptsRoot
    };

    bool ok = false;
    Failure failure = Failure::None;
    QString problem;             // one line naming the block, the receipt and what is wrong
    QList<chain::LogEntry> logs; // empty unless ok
    qsizetype receipts = 0;      // how many receipts were checked (0 unless ok)
};

// Checks eth_getBlockReceipts's reply for `header`: every receipt names this block;
// transactionIndex runs 0..n-1 and logIndex 0..m-1 across the block; each log names its
// receipt's transaction; each receipt's logsBloom is the bloom of its logs; the OR of them
// is header.logsBloom; and the ordered trie of the receipts' consensus encodings has
// header.receiptsRoot as its root.
//
// This proves the logs against the header, so the header must itself be trusted: its hash
// recomputed from its fields (verifyHeaderHash) and that hash on the chain being indexed.
// Pure: no I/O, safe on any thread.
ReceiptsVerdict verifyReceipts(const chain::BlockHeader& header, const QJsonValue& receipts);
// The same, on the reply as simdjson parsed it (EthClient::blockReceiptsJson): the receipts
// are read straight from it.
ReceiptsVerdict verifyReceipts(const chain::BlockHeader& header, const chain::ParsedJson& receipts);

} // namespace forkscope::proof
