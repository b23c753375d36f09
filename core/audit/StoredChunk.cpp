#include "StoredChunk.h"
#include "store/ContractReader.h"

namespace forkscope::audit {

void StoredChunk::readBlocks(store::ContractReader& reader, const QVariantList& scope,
                             std::uint64_t a, std::uint64_t b)
{
    const auto q = reader.query(QStringLiteral("SELECT block_number, block_hash, parent_hash, "
                                               "block_timestamp FROM blocks WHERE environment_id "
                                               "= ? AND chain_id = ? AND block_number BETWEEN ? "
                                               "AND ?"),
                                scope + QVariantList{qint64(a), qint64(b)});
    while (q->next())
        blocks.insert(
            q->value(0).toULongLong(),
            StoredBlock{q->value(1).toString(), q->value(2).toString(), q->value(3).toLongLong()});
}

void StoredChunk::readLogs(store::ContractReader& reader, const QVariantList& scope,
                           std::uint64_t a, std::uint64_t b, bool decoded)
{
    const QVariantList range = scope + QVariantList{qint64(a), qint64(b)};
    {
        const auto q = reader.query(
            QStringLiteral("SELECT block_number, log_index, block_hash, address, topic0, topic1, "
                           "topic2, topic3, data, tx_hash, event_name%1 FROM logs WHERE "
                           "environment_id = ? AND chain_id = ? AND block_number BETWEEN ? AND ?")
                .arg(decoded ? QStringLiteral(", args_json, decode_error") : QString()),
            range);
        while (q->next()) {
            ++logRows;
            StoredLog log;
            log.blockHash = q->value(2).toString();
            log.address = q->value(3).toString();
            for (int t = 4; t < 8; ++t)
                if (!q->value(t).isNull())
                    log.topics << q->value(t).toString();
            log.data = q->value(8).toString();
            log.txHash = q->value(9).toString();
            log.eventName = q->value(10);
            if (decoded) {
                log.argsJson = q->value(11);
                log.decodeError = q->value(12);
            }
            logs[q->value(0).toULongLong()].insert(q->value(1).toULongLong(), log);
        }
    }
    const auto q = reader.query(QStringLiteral("SELECT block_number, log_index, contract, "
                                               "from_addr, to_addr, value FROM transfer_events "
                                               "WHERE environment_id = ? AND chain_id = ? AND "
                                               "block_number BETWEEN ? AND ?"),
                                range);
    while (q->next()) {
        ++transferRows;
        transfers[q->value(0).toULongLong()].insert(
            q->value(1).toULongLong(),
            StoredTransfer{q->value(2).toString(), q->value(3).toString(), q->value(4).toString(),
                           q->value(5).toString()});
    }
}

} // namespace forkscope::audit
