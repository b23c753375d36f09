#include "PgCommitRows.h"
#include "PgConnection.h"
#include "chain/U256.h"
#include "indexer/StoredDecodeError.h"
#include "indexer/TransferDecoder.h"

namespace forkscope::store::pg {

PgCommitRows::PgCommitRows(const QByteArray& environmentId, qint64 chainId,
                           const indexer::VerifiedBatch& batch, bool withBlocks,
                           indexer::HolderDeltas* sides)
    : m_env(environmentId), m_chainId(chainId)
{
    for (const chain::BlockHeader& h : withBlocks ? batch.blocks : QList<chain::BlockHeader>{}) {
        m_blocks.text(m_env).int8(m_chainId).int8(qint64(h.number));
        m_blocks.bytea(h.hash.toByteArray()).bytea(h.parentHash.toByteArray());
        m_blocks.int8(qint64(h.timestamp)).endRow();
    }
    m_stats.blocks = withBlocks ? batch.blocks.size() : 0;
    for (qsizetype i = 0; i < batch.logs.size(); ++i)
        addLog(batch.logs[i],
               i < batch.decodings.size() ? batch.decodings[i] : abi::EventDecoding{}, sides);
    m_blocks.finish();
    m_logs.finish();
}

void PgCommitRows::addLog(const chain::LogEntry& log, const abi::EventDecoding& abiDecoding,
                          indexer::HolderDeltas* sides)
{
    ++m_stats.logs;
    switch (abiDecoding.status) {
    case abi::EventDecoding::Status::Decoded:
        ++m_stats.abiDecoded;
        break;
    case abi::EventDecoding::Status::Unmatched:
        ++m_stats.abiUnmatched;
        break;
    case abi::EventDecoding::Status::Failed:
        ++m_stats.abiFailures;
        break;
    case abi::EventDecoding::Status::NotConfigured:
        break;
    }
    PgBinaryRows& r = m_logs;
    r.text(m_env).int8(m_chainId).int8(qint64(log.blockNumber));
    r.int8(qint64(log.logIndex));
    r.bytea(log.blockHash.toByteArray()).bytea(log.transactionHash.toByteArray());
    r.bytea(log.address.toByteArray());
    for (int t = 0; t < 4; ++t) {
        if (t < log.topics.size())
            r.bytea(log.topics[t].toByteArray());
        else
            r.null();
    }
    r.bytea(log.data);
    const indexer::TransferDecodeResult decoded = indexer::decodeTransfer(log);
    const auto* failure = std::get_if<indexer::TransferDecodeFailure>(&decoded);
    if (failure)
        ++m_stats.decodeFailures;
    const QByteArray decodeError = indexer::storedDecodeError(failure, abiDecoding);
    if (decodeError.isEmpty())
        r.null();
    else
        r.text(decodeError);
    if (const auto* transfer = std::get_if<indexer::Transfer>(&decoded)) {
        ++m_stats.transfers;
        ++m_stats.outboxRows; // rendered from its log until delivery takes it (PgPendingOutbox.h)
        r.numeric(transfer->value);
        if (sides) {
            const chain::SignedAmount amount(transfer->value);
            if (!transfer->from.isZero())
                sides->addSide({transfer->contract, transfer->from}, -amount, log.blockNumber);
            if (!transfer->to.isZero())
                sides->addSide({transfer->contract, transfer->to}, amount, log.blockNumber);
        }
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

void PgCommitRows::copyInto(PgConnection& db) const
{
    if (m_stats.blocks > 0)
        db.copyIn("COPY block_store (environment_id, chain_id, block_number, block_hash, "
                  "parent_hash, block_timestamp) FROM STDIN (FORMAT binary)",
                  m_blocks.data());
    db.copyIn("COPY log_store (environment_id, chain_id, block_number, log_index, block_hash, "
              "tx_hash, address, topic0, topic1, topic2, topic3, data, decode_error, "
              "transfer_value, event_name, args_json) FROM STDIN (FORMAT binary)",
              m_logs.data());
}

} // namespace forkscope::store::pg
