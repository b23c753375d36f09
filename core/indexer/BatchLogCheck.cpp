#include "BatchLogCheck.h"
#include "IndexerErrors.h"
#include "wire/ReplyMismatchError.h"

namespace forkscope::indexer {

void checkBatchLog(const chain::LogEntry& log, std::uint64_t fromBlock, std::uint64_t toBlock,
                   const QList<chain::BlockHeader>& headers, const QSet<chain::Address>& contracts,
                   const QString& endpoint)
{
    if (log.blockNumber < fromBlock || log.blockNumber - fromBlock >= std::uint64_t(headers.size()))
        throw wire::ReplyMismatchError(
            QStringLiteral("node %1 returned a log of block %2 for the range %3..%4; "
                           "nothing from this batch is committed")
                .arg(endpoint)
                .arg(log.blockNumber)
                .arg(fromBlock)
                .arg(toBlock));
    if (!contracts.contains(log.address))
        throw wire::ReplyMismatchError(
            QStringLiteral("node %1 returned a log of block %2 (log index %3) from address "
                           "%4, which is not one of the indexed contracts; nothing from "
                           "this batch is committed")
                .arg(endpoint)
                .arg(log.blockNumber)
                .arg(log.logIndex)
                .arg(log.address.toHex()));
    const chain::Hash32& headerHash = headers.at(qsizetype(log.blockNumber - fromBlock)).hash;
    if (log.removed || headerHash != log.blockHash)
        throw NodeInconsistentError(
            QStringLiteral("node %1 returned logs of block %2 with block hash %3, but the "
                           "block's header has %4 (a reorg between the two queries, or an "
                           "inconsistent node); nothing committed, fetching again")
                .arg(endpoint)
                .arg(log.blockNumber)
                .arg(log.blockHash.toHex())
                .arg(headerHash.toHex()));
}

} // namespace forkscope::indexer
