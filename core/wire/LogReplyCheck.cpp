#include "LogReplyCheck.h"
#include "ReplyMismatchError.h"

namespace forkscope::wire {

namespace {
QString describe(const chain::LogEntry& log, qsizetype index)
{
    return QStringLiteral("log %1 (block %2, log index %3, tx %4)")
        .arg(index)
        .arg(log.blockNumber)
        .arg(log.logIndex)
        .arg(log.transactionHash.toHex());
}
} // namespace

void checkLogsMatchFilter(const QList<chain::LogEntry>& logs, const rpc::LogFilter& filter,
                          const QString& endpoint)
{
    const QString asked =
        filter.blockHash
            ? QStringLiteral("eth_getLogs(blockHash %1)").arg(filter.blockHash->toHex())
            : QStringLiteral("eth_getLogs(%1..%2)").arg(filter.fromBlock).arg(filter.toBlock);
    const auto fail = [&](const chain::LogEntry& log, qsizetype i, const QString& what) {
        throw ReplyMismatchError(QStringLiteral("node %1 answered %2 with %3 %4; nothing from "
                                                "this batch is committed")
                                     .arg(endpoint, asked, describe(log, i), what));
    };
    for (qsizetype i = 0; i < logs.size(); ++i) {
        const chain::LogEntry& log = logs.at(i);
        if (log.removed)
            fail(log, i, QStringLiteral("marked removed (a log of a replaced block)"));
        if (filter.blockHash) {
            if (log.blockHash != *filter.blockHash)
                fail(log, i,
                     QStringLiteral("from block hash %1, not the requested block")
                         .arg(log.blockHash.toHex()));
        } else if (log.blockNumber < filter.fromBlock || log.blockNumber > filter.toBlock) {
            fail(log, i, QStringLiteral("outside the requested block range"));
        }
        if (!filter.addresses.isEmpty() && !filter.addresses.contains(log.address))
            fail(log, i,
                 QStringLiteral("from address %1, which was not requested")
                     .arg(log.address.toHex()));
        for (qsizetype t = 0; t < filter.topics.size(); ++t) {
            const QList<chain::Hash32>& alternatives = filter.topics.at(t);
            if (alternatives.isEmpty())
                continue; // a wildcard position
            if (t >= log.topics.size() || !alternatives.contains(log.topics.at(t)))
                fail(log, i,
                     QStringLiteral("whose topic %1 is not one of the %2 requested")
                         .arg(t)
                         .arg(alternatives.size()));
        }
    }
}

} // namespace forkscope::wire
