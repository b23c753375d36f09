#include "ReorgDiffReader.h"
#include "ReindexMatch.h"
#include "store/ContractReader.h"
#include "store/ReorgEventStore.h"

#include <QDateTime>

namespace forkscope::engine {

std::optional<ReorgDiff> readReorgDiff(store::ContractReader& reader, const QString& environmentId,
                                       qint64 reorgId, int limit)
{
    const auto snapshot = reader.snapshot(); // the event, its rows and what came back: one state
    const auto event = reader.query(
        QStringLiteral("SELECT id, detected_at, depth, reason, fork_block_number, rows_removed "
                       "FROM reorg_events WHERE id = ? AND environment_id = ?"),
        {reorgId, environmentId});
    if (!event->next())
        return std::nullopt;
    ReorgDiff diff;
    diff.reorg = {event->value(0).toLongLong(),
                  QDateTime::fromString(event->value(1).toString(), Qt::ISODateWithMs),
                  event->value(2).toLongLong(),
                  event->value(3).toString(),
                  event->value(4).toLongLong(),
                  event->value(5).toLongLong()};
    const auto items = reader.query(
        QStringLiteral("SELECT kind, block_number, log_index, contract, holder, from_addr, "
                       "to_addr, value, before_value, after_value, event_key, tx_hash FROM "
                       "reorg_diff_items WHERE reorg_id = ? AND environment_id = ? ORDER BY kind, "
                       "block_number, log_index LIMIT ?"),
        {reorgId, environmentId, limit});
    while (items->next()) {
        ReorgDiff::Item it;
        it.kind = items->value(0).toString();
        it.blockNumber = items->value(1).isNull() ? -1 : items->value(1).toLongLong();
        it.logIndex = items->value(2).isNull() ? -1 : items->value(2).toLongLong();
        it.contract = items->value(3).toString();
        it.holder = items->value(4).toString();
        it.from = items->value(5).toString();
        it.to = items->value(6).toString();
        // An outbox row's value is the payload it carried: not an amount to show.
        it.value =
            it.kind.startsWith(QLatin1String("outbox")) ? QString() : items->value(7).toString();
        it.before = items->value(8).toString();
        it.after = items->value(9).toString();
        it.eventKey = items->value(10).toString();
        it.txHash = items->value(11).toString();
        diff.items.append(it);
    }
    QHash<QString, int> above;
    for (auto q = reader.query(QStringLiteral("SELECT tx_hash, contract, from_addr, to_addr, value "
                                              "FROM transfer_events WHERE environment_id = ? AND "
                                              "block_number > ?"),
                               {environmentId, diff.reorg.forkBlock});
         q->next();)
        ++above[store::ReorgEventStore::transferKey(q->value(0).toString(), q->value(1).toString(),
                                                    q->value(2).toString(), q->value(3).toString(),
                                                    q->value(4).toString())];
    markReindexed(diff.items, above);
    return diff;
}

} // namespace forkscope::engine
