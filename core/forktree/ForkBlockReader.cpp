#include "ForkBlockReader.h"
#include "engine/ReindexMatch.h"
#include "store/ContractReader.h"
#include "store/ReorgEventStore.h"

#include <QHash>

namespace forkscope::forktree {

namespace {

// The removed Transfers of one rollback this many at most are matched against the chain
// indexed since; a deeper rollback's later blocks read as not back.
constexpr int kMaxMatchedTransfers = 100000;

// "WHERE environment_id = ? AND block_number = ?" and, with a number, that number.
QString numberFilter(const std::optional<quint64>& number)
{
    return number ? QStringLiteral(" AND block_number = ?") : QString();
}

bool add(ForkBlockRows& out, ForkBlockRow row, int limit)
{
    if (out.rows.size() >= limit) {
        out.truncated = true;
        return false;
    }
    out.rows.append(std::move(row));
    return true;
}

ForkBlockRow transferRow(const engine::ReorgDiff::Item& item)
{
    ForkBlockRow r;
    r.kind = ForkBlockRow::Kind::Transfer;
    r.txHash = chain::Hash32::fromHex(item.txHash, QStringLiteral("reorg_diff_items.tx_hash"));
    r.logIndex = quint32(std::max<qint64>(item.logIndex, 0));
    r.contract = item.contract;
    r.from = item.from;
    r.to = item.to;
    r.value = item.value;
    r.cameBack = item.again != engine::ReorgDiff::Item::Again::No;
    return r;
}

// The retractions of an orphaned block's rows a consumer had or may have had (`delivered`,
// by event key).
void addRetractions(store::ContractReader& reader, const QString& env, qint64 forkBlock,
                    const QHash<QString, ForkBlockRow>& delivered, ForkBlockRows& out, int limit)
{
    // Enqueued at the fork's height; a deeper reorg before it went out moved it down to its
    // own fork. Those heights first, so that each read of the outbox is by height.
    QList<qint64> heights;
    for (auto q = reader.query(QStringLiteral("SELECT fork_block_number FROM reorg_events WHERE "
                                              "environment_id = ? AND id >= ? AND "
                                              "fork_block_number <= ? ORDER BY "
                                              "fork_block_number DESC LIMIT ?"),
                               {env, out.reorgId, forkBlock, limit + 1});
         q->next();) {
        const qint64 h = std::max<qint64>(q->value(0).toLongLong(), 0);
        if (!heights.contains(h))
            heights << h;
    }
    for (const qint64 height : std::as_const(heights))
        for (auto q = reader.query(
                 QStringLiteral("SELECT event_key FROM outbox WHERE "
                                "environment_id = ? AND block_number = ? AND "
                                "event_key LIKE ? ORDER BY event_key LIMIT ?"),
                 {env, height,
                  QStringLiteral("retract:transfer:%1:%2:%").arg(out.number).arg(out.hash.toHex()),
                  limit + 1});
             q->next();) {
            const QString key = q->value(0).toString();
            ForkBlockRow row = delivered.value(key.mid(int(qstrlen("retract:"))));
            row.kind = ForkBlockRow::Kind::OutboxRetraction;
            row.eventKey = key;
            if (!add(out, row, limit))
                return;
        }
}

void readOrphaned(store::ContractReader& reader, const QString& env, ForkBlockRows& out, int limit)
{
    const qint64 forkBlock = reader.scalar(QStringLiteral("SELECT fork_block_number FROM "
                                                          "reorg_events WHERE id = ? AND "
                                                          "environment_id = ?"),
                                           {out.reorgId, env});
    // The rollback's removed Transfers in the diff view's order, so that each is matched
    // against the chain indexed since exactly as the diff view matches it.
    QList<engine::ReorgDiff::Item> transfers;
    for (auto q = reader.query(QStringLiteral("SELECT block_number, log_index, tx_hash, contract, "
                                              "from_addr, to_addr, value FROM reorg_diff_items "
                                              "WHERE environment_id = ? AND reorg_id = ? AND "
                                              "kind = 'transfer_removed' ORDER BY block_number, "
                                              "log_index LIMIT ?"),
                               {env, out.reorgId, kMaxMatchedTransfers});
         q->next();) {
        engine::ReorgDiff::Item it;
        it.kind = QStringLiteral("transfer_removed");
        it.blockNumber = q->value(0).toLongLong();
        it.logIndex = q->value(1).toLongLong();
        it.txHash = q->value(2).toString();
        it.contract = q->value(3).toString();
        it.from = q->value(4).toString();
        it.to = q->value(5).toString();
        it.value = q->value(6).toString();
        transfers.append(it);
    }
    QHash<QString, int> above;
    for (auto q = reader.query(QStringLiteral("SELECT tx_hash, contract, from_addr, to_addr, value "
                                              "FROM transfer_events WHERE environment_id = ? AND "
                                              "block_number > ?"),
                               {env, forkBlock});
         q->next();)
        ++above[store::ReorgEventStore::transferKey(q->value(0).toString(), q->value(1).toString(),
                                                    q->value(2).toString(), q->value(3).toString(),
                                                    q->value(4).toString())];
    engine::markReindexed(transfers, above);
    QHash<qint64, ForkBlockRow> byLog; // this block's Transfers by log index
    for (const engine::ReorgDiff::Item& it : std::as_const(transfers))
        if (it.blockNumber == qint64(out.number)) {
            const ForkBlockRow row = transferRow(it);
            byLog.insert(it.logIndex, row);
            if (!add(out, row, limit))
                return;
        }
    // What a consumer had, or may have had, received from this block: the rollback enqueued
    // a retraction of each at the fork's height.
    QHash<QString, ForkBlockRow> delivered; // by event key
    for (auto q = reader.query(
             QStringLiteral("SELECT log_index, event_key, kind FROM reorg_diff_items WHERE "
                            "environment_id = ? AND reorg_id = ? AND kind IN "
                            "('outbox_delivered_reorged', 'outbox_unconfirmed_retracted') AND "
                            "block_number = ? ORDER BY log_index LIMIT ?"),
             {env, out.reorgId, qint64(out.number), limit + 1});
         q->next();) {
        ForkBlockRow row = byLog.value(q->value(0).toLongLong());
        row.kind = q->value(2).toString() == QLatin1String("outbox_delivered_reorged")
                       ? ForkBlockRow::Kind::OutboxDelivered
                       : ForkBlockRow::Kind::OutboxUnconfirmed;
        row.cameBack = false;
        row.eventKey = q->value(1).toString();
        delivered.insert(row.eventKey, row);
        if (!add(out, row, limit))
            return;
    }
    if (delivered.isEmpty())
        return;
    addRetractions(reader, env, forkBlock, delivered, out, limit);
}

void readCanonical(store::ContractReader& reader, const QString& env, ForkBlockRows& out, int limit)
{
    const qint64 number = qint64(out.number);
    QHash<qint64, ForkBlockRow> transfers; // by log index
    for (auto q = reader.query(QStringLiteral("SELECT log_index, tx_hash, contract, from_addr, "
                                              "to_addr, value FROM transfer_events WHERE "
                                              "environment_id = ? AND block_number = ? LIMIT ?"),
                               {env, number, limit + 1});
         q->next();) {
        ForkBlockRow r;
        r.kind = ForkBlockRow::Kind::Transfer;
        r.logIndex = quint32(q->value(0).toLongLong());
        r.txHash = chain::Hash32::fromHex(q->value(1).toString(),
                                          QStringLiteral("transfer_events.tx_hash"));
        r.contract = q->value(2).toString();
        r.from = q->value(3).toString();
        r.to = q->value(4).toString();
        r.value = q->value(5).toString();
        transfers.insert(r.logIndex, r);
    }
    for (auto q = reader.query(QStringLiteral("SELECT log_index, tx_hash, address FROM logs WHERE "
                                              "environment_id = ? AND block_number = ? ORDER BY "
                                              "log_index LIMIT ?"),
                               {env, number, limit + 1});
         q->next();) {
        const qint64 index = q->value(0).toLongLong();
        ForkBlockRow r = transfers.value(index);
        if (!transfers.contains(index)) {
            r.kind = ForkBlockRow::Kind::Log;
            r.logIndex = quint32(index);
            r.txHash =
                chain::Hash32::fromHex(q->value(1).toString(), QStringLiteral("logs.tx_hash"));
            r.contract = q->value(2).toString();
        }
        if (!add(out, r, limit))
            return;
    }
    // Its delivered rows name this block's hash in their key; a retraction enqueued here
    // retracts a row of a block a rollback removed above.
    for (auto q = reader.query(
             QStringLiteral("SELECT event_key FROM outbox WHERE environment_id "
                            "= ? AND block_number = ? AND ((delivered_at IS NOT "
                            "NULL AND event_key LIKE ?) OR event_key LIKE "
                            "'retract:%') ORDER BY event_key LIMIT ?"),
             {env, number, QStringLiteral("transfer:%1:%2:%").arg(out.number).arg(out.hash.toHex()),
              limit + 1});
         q->next();) {
        const QString key = q->value(0).toString();
        ForkBlockRow r;
        if (key.startsWith(QLatin1String("retract:"))) {
            r.kind = ForkBlockRow::Kind::OutboxRetraction;
        } else {
            r = transfers.value(key.section(QLatin1Char(':'), 3, 3).toLongLong());
            r.kind = ForkBlockRow::Kind::OutboxDelivered;
        }
        r.eventKey = key;
        if (!add(out, r, limit))
            return;
    }
}

} // namespace

std::optional<ForkBlockRows> readForkBlock(store::ContractReader& reader,
                                           const QString& environmentId, const chain::Hash32& hash,
                                           std::optional<quint64> numberHint, int limit)
{
    const auto snapshot = reader.snapshot(); // which block it is, and its rows: one state
    const QString hex = hash.toHex();
    QVariantList args{environmentId, hex};
    if (numberHint)
        args << qint64(*numberHint);
    ForkBlockRows out;
    out.hash = hash;
    if (auto q = reader.query(QStringLiteral("SELECT block_number FROM blocks WHERE "
                                             "environment_id = ? AND block_hash = ?") +
                                  numberFilter(numberHint),
                              args);
        q->next()) {
        out.number = quint64(q->value(0).toLongLong());
        readCanonical(reader, environmentId, out, limit);
        return out;
    }
    // Removed more than once (the chain went back to it in between): the latest removal.
    if (auto q = reader.query(QStringLiteral("SELECT block_number, reorg_id FROM orphaned_blocks "
                                             "WHERE environment_id = ? AND block_hash = ?") +
                                  numberFilter(numberHint) +
                                  QStringLiteral(" ORDER BY reorg_id DESC LIMIT 1"),
                              args);
        q->next()) {
        out.number = quint64(q->value(0).toLongLong());
        out.orphaned = true;
        out.reorgId = q->value(1).toLongLong();
        readOrphaned(reader, environmentId, out, limit);
        return out;
    }
    return std::nullopt;
}

} // namespace forkscope::forktree
