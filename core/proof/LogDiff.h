#pragma once

#include "chain/Address.h"
#include "chain/Hash32.h"
#include "chain/LogEntry.h"

#include <QList>
#include <QString>
#include <QStringList>

namespace forkscope::proof {

// How a claimed list of one block's logs (an eth_getLogs answer, or rows already stored)
// differs from the proven one (ReceiptsVerdict::logs, filtered the same way), matched by
// logIndex.
struct LogDiff
{
    struct Altered
    {
        chain::LogEntry proven;
        chain::LogEntry claimed;
        QStringList fields; // which fields differ, e.g. {"data", "topics"}
    };

    QList<chain::LogEntry> missing; // proven, not claimed
    QList<chain::LogEntry> extra;   // claimed, not in the block (or a logIndex claimed twice)
    QList<Altered> altered;         // same logIndex, different content

    bool isEmpty() const { return missing.isEmpty() && extra.isEmpty() && altered.isEmpty(); }
    // One line for an error or a report, at most `maxNamed` logs named per kind, e.g.
    // "2 missing (logIndex 4 of 0x5fbd... in tx 2, logIndex 7 of ...); 1 altered (logIndex 3:
    // data)". Empty when there is no difference.
    QString describe(int maxNamed = 3) const;
};

// Pure; neither list needs to be sorted. Compared: address, topics, data, blockHash,
// blockNumber, transactionIndex and transactionHash ("removed" is not: it is no part of a
// block). Note that the receipts root proves every field but transactionHash, which only
// the block's transactionsRoot commits to.
LogDiff diffLogs(const QList<chain::LogEntry>& proven, const QList<chain::LogEntry>& claimed);

// The logs eth_getLogs would return from `logs` for this filter: an address among
// `addresses` (any when empty) and, per position, a topic among the alternatives (an empty
// list is a wildcard). As in go-ethereum, a log with fewer topics than the filter has
// positions never matches.
QList<chain::LogEntry> selectLogs(const QList<chain::LogEntry>& logs,
                                  const QList<chain::Address>& addresses,
                                  const QList<QList<chain::Hash32>>& topics);

} // namespace forkscope::proof
