#include "PgBatchRows.h"
#include "BatchLogCheck.h"
#include "IndexerErrors.h"
#include "StoredDecodeError.h"
#include "TransferDecoder.h"
#include "store/pg/PgConnection.h"
#include "wire/WireBatch.h"

namespace forkscope::indexer {

PgBatchRows::PgBatchRows(const QString& environmentId, qint64 chainId)
    : m_env(environmentId.toUtf8()), m_chainId(chainId)
{
}

void PgBatchRows::append(const wire::WireBatch& batch, std::uint64_t from,
                         const QList<chain::Address>& contracts, const QString& endpoint)
{
    const qsizetype first = m_headers.size();
    for (const chain::BlockHeader& h : batch.headers) {
        const bool inSequence = h.number == from + std::uint64_t(m_headers.size() - first);
        if (!inSequence || (!m_headers.isEmpty() && h.parentHash != m_headers.last().hash))
            throw NodeInconsistentError(
                QStringLiteral("node %1 serves block %2 that does not follow block %3; nothing "
                               "of these blocks is stored")
                    .arg(endpoint)
                    .arg(h.number)
                    .arg(m_headers.isEmpty() ? QString::number(from - 1)
                                             : QString::number(m_headers.last().number)));
        m_headers.append(h);
    }
    const QList<chain::BlockHeader> added = m_headers.mid(first);
    for (qsizetype i = 0; i < batch.logs.size(); ++i) {
        const chain::LogEntry& log = batch.logs[i];
        checkBatchLog(log, from, batch.toBlock, added, contracts, endpoint);
        addLog(log, i < batch.decodings.size() ? batch.decodings[i] : abi::EventDecoding{});
    }
    for (const chain::BlockHeader& h : added) {
        m_blocks.text(m_env).integer(m_chainId).integer(qint64(h.number));
        m_blocks.bytea(h.hash.toByteArray()).bytea(h.parentHash.toByteArray());
        m_blocks.integer(qint64(h.timestamp)).endRow();
    }
}

void PgBatchRows::addLog(const chain::LogEntry& log, const abi::EventDecoding& abiDecoding)
{
    store::pg::PgCopyRows& r = m_logs;
    r.text(m_env).integer(m_chainId).integer(qint64(log.blockNumber));
    r.integer(qint64(log.logIndex));
    r.bytea(log.blockHash.toByteArray()).bytea(log.transactionHash.toByteArray());
    r.bytea(log.address.toByteArray());
    for (int t = 0; t < 4; ++t) {
        if (t < log.topics.size())
            r.bytea(log.topics[t].toByteArray());
        else
            r.null();
    }
    r.bytea(log.data);
    const TransferDecodeResult decoded = decodeTransfer(log);
    const QByteArray decodeError =
        storedDecodeError(std::get_if<TransferDecodeFailure>(&decoded), abiDecoding);
    if (decodeError.isEmpty())
        r.null();
    else
        r.text(decodeError);
    if (const auto* transfer = std::get_if<Transfer>(&decoded)) {
        r.text(chain::u256::toDecimal(transfer->value).toLatin1());
        m_outbox.text(m_env).integer(m_chainId).integer(qint64(log.blockNumber));
        m_outbox.integer(qint64(log.logIndex)).endRow();
    } else {
        r.null();
    }
    // As stored text, the compact JSON the ABI decoded: PostgreSQL has no args template
    // (SQLite's saving for Transfers), so a decoded log costs its arguments' size here.
    if (abiDecoding.eventName.isEmpty())
        r.null();
    else
        r.text(abiDecoding.eventName.toUtf8());
    if (abiDecoding.status == abi::EventDecoding::Status::Decoded)
        r.text(abiDecoding.argsJson);
    else
        r.null();
    r.endRow();
}

void PgBatchRows::copyInto(store::pg::PgConnection& db) const
{
    db.copyIn("COPY block_store (environment_id, chain_id, block_number, block_hash, "
              "parent_hash, block_timestamp) FROM STDIN",
              m_blocks.data());
    db.copyIn("COPY log_store (environment_id, chain_id, block_number, log_index, block_hash, "
              "tx_hash, address, topic0, topic1, topic2, topic3, data, decode_error, "
              "transfer_value, event_name, args_json) FROM STDIN",
              m_logs.data());
    db.copyIn("COPY outbox_store (environment_id, chain_id, block_number, log_index) FROM STDIN",
              m_outbox.data());
}

qint64 PgBatchRows::removeBlocks(store::pg::PgConnection& db, const QByteArray& environmentId,
                                 const QByteArray& chainId, qint64 from, qint64 to)
{
    const QList<QByteArray> span{environmentId, chainId, QByteArray::number(from),
                                 QByteArray::number(to)};
    qint64 removed = 0;
    for (const char* sql : {"DELETE FROM outbox_store WHERE environment_id = $1 AND chain_id = $2 "
                            "AND block_number BETWEEN $3 AND $4 AND delivered_at IS NULL",
                            "DELETE FROM log_store WHERE environment_id = $1 AND chain_id = $2 AND "
                            "block_number BETWEEN $3 AND $4",
                            "DELETE FROM block_store WHERE environment_id = $1 AND chain_id = $2 "
                            "AND block_number BETWEEN $3 AND $4"})
        removed += db.run(sql, sql, span).affected();
    return removed;
}

} // namespace forkscope::indexer
