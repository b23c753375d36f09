#pragma once

#include "chain/Address.h"
#include "chain/BlockHeader.h"
#include "chain/LogEntry.h"

#include <QList>
#include <QSet>
#include <QString>

namespace forkscope::indexer {

// The receiver's check of one fetched log against the request and the batch's own headers
// (the receiver never trusts the sender: docs/design.md, "Never trust the node or the file").
// `headers` are the verified, linked headers from `fromBlock` on, and the log's block must be among
// them. A log below the range or from an address nobody asked for is a ReplyMismatchError (it would
// break invariant 2); one whose block hash is not its header's, or marked removed, belongs to
// another branch: NodeInconsistentError. Either way nothing of the batch is committed.
void checkBatchLog(const chain::LogEntry& log, std::uint64_t fromBlock, std::uint64_t toBlock,
                   const QList<chain::BlockHeader>& headers, const QSet<chain::Address>& contracts,
                   const QString& endpoint);

} // namespace forkscope::indexer
