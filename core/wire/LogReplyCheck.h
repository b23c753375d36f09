#pragma once

#include "chain/LogEntry.h"
#include "rpc/EthClient.h"

#include <QList>

namespace forkscope::wire {

// Checks every log of an eth_getLogs reply against the filter it answers: block inside
// [fromBlock, toBlock] (or the requested blockHash), address in the requested set, each
// topic position within the requested alternatives, not `removed`. Never trust the node:
// a log that fails is a ReplyMismatchError naming the node, the log and what was asked.
void checkLogsMatchFilter(const QList<chain::LogEntry>& logs, const rpc::LogFilter& filter,
                          const QString& endpoint);

} // namespace forkscope::wire
