#include "ForeignBlockReader.h"
#include "ForeignRow.h"
#include "ForeignTable.h"
#include "audit/AuditError.h"
#include "chain/LogsBloom.h"
#include "indexer/TransferDecoder.h"
#include "rpc/EthClient.h"

#include <QSet>
#include <variant>

namespace forkscope::foreign {

namespace {

const QString kOpenAgain = QStringLiteral("open the finding again");

ForeignBlockView::Event eventOf(const ForeignRow& r)
{
    ForeignBlockView::Event e;
    e.logIndex = r.logIndex;
    e.txHash = r.txHash ? r.txHash->toHex() : QString();
    e.contract = r.contract.toHex();
    e.from = r.from ? r.from->toHex() : QString();
    e.to = r.to ? r.to->toHex() : QString();
    e.value = r.value ? chain::u256::toDecimal(*r.value) : QString();
    e.blockHash = r.blockHash                   ? r.blockHash->toHex()
                  : r.blockHashPrefix.isEmpty() ? QString()
                                                : QStringLiteral("0x%1...").arg(r.blockHashPrefix);
    e.label = r.label;
    return e;
}

} // namespace

ForeignBlockView readForeignBlock(ForeignTable& table, const QString& query, rpc::EthClient& eth,
                                  const QList<chain::Address>& contracts, std::uint64_t block)
{
    ForeignBlockView v;
    v.block = block;
    const ForeignColumns columns(table.columns(query), contracts.size() == 1
                                                           ? std::optional(contracts.first())
                                                           : std::nullopt);
    table.rowsBetween(query, block, block, ForeignBlockView::kMaxEvents,
                      [&](const ForeignCells& cells) { v.rows << eventOf(columns.read(cells)); });

    const std::optional<chain::BlockHeader> h = eth.blockByNumber(block);
    if (!h)
        throw audit::AuditError(audit::AuditError::Kind::NodeUntrusted,
                                QStringLiteral("node %1 has no block %2 (a lagging node, or a "
                                               "reorg since): %3")
                                    .arg(eth.endpointText())
                                    .arg(block)
                                    .arg(kOpenAgain));
    v.canonicalHash = h->hash.toHex();
    rpc::LogFilter f;
    f.blockHash = h->hash;
    const QList<chain::LogEntry> logs = eth.getLogs(f);
    for (const chain::LogEntry& log : logs)
        if (log.blockHash != h->hash || log.blockNumber != block || log.removed)
            throw audit::AuditError(audit::AuditError::Kind::NodeUntrusted,
                                    QStringLiteral("node %1 answered the logs of block %2 by "
                                                   "hash with log %3 of another block: %4")
                                        .arg(eth.endpointText())
                                        .arg(block)
                                        .arg(log.logIndex)
                                        .arg(kOpenAgain));
    if (chain::bloom::of(logs) != h->logsBloom)
        throw audit::AuditError(audit::AuditError::Kind::NodeUntrusted,
                                QStringLiteral("node %1 hides logs of block %2: the bloom of the "
                                               "%3 logs it returns is not the header's: %4")
                                    .arg(eth.endpointText())
                                    .arg(block)
                                    .arg(logs.size())
                                    .arg(kOpenAgain));
    const QSet<chain::Address> ours(contracts.cbegin(), contracts.cend());
    for (const chain::LogEntry& log : logs) {
        if (!ours.contains(log.address))
            continue;
        const indexer::TransferDecodeResult d = indexer::decodeTransfer(log);
        const auto* t = std::get_if<indexer::Transfer>(&d);
        if (!t)
            continue;
        if (v.chain.size() >= ForeignBlockView::kMaxEvents) {
            ++v.rowsLeftOut;
            continue;
        }
        ForeignBlockView::Event e;
        e.logIndex = log.logIndex;
        e.txHash = log.transactionHash.toHex();
        e.contract = t->contract.toHex();
        e.from = t->from.toHex();
        e.to = t->to.toHex();
        e.value = chain::u256::toDecimal(t->value);
        e.blockHash = h->hash.toHex();
        v.chain << e;
    }
    return v;
}

} // namespace forkscope::foreign
