#include "BatchCommitter.h"
#include "BalanceBook.h"
#include "CheckpointStore.h"
#include "CrashPoints.h"
#include "TransferDecoder.h"
#include "chain/Hex.h"
#include "store/Database.h"
#include "store/SqliteStatement.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>

namespace forkscope::indexer {

BatchCommitter::BatchCommitter(store::Database& db, QString environmentId, std::uint64_t chainId,
                               CheckpointStore& checkpoints, BalanceBook& balances)
    : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId), m_checkpoints(checkpoints),
      m_balances(balances), m_envUtf8(m_env.toUtf8())
{
}

BatchCommitter::~BatchCommitter() = default;

CommitStats BatchCommitter::commit(const std::optional<Checkpoint>& expected,
                                   const VerifiedBatch& batch, std::uint64_t startBlock,
                                   const QString& policyVersion, int generation,
                                   const std::function<void()>& inTransaction)
{
    Q_ASSERT(!batch.blocks.isEmpty());
    using store::SqliteStatement;
    if (!m_insBlock) {
        m_insBlock = std::make_unique<SqliteStatement>(
            m_db,
            "INSERT INTO blocks (environment_id, chain_id, block_number, block_hash, parent_hash, "
            "block_timestamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
            "ON CONFLICT (environment_id, chain_id, block_number) DO NOTHING");
        m_insLog = std::make_unique<SqliteStatement>(
            m_db,
            "INSERT INTO logs (environment_id, chain_id, block_number, block_hash, log_index, "
            "tx_hash, address, topic0, topic1, topic2, topic3, data, decode_error, event_name, "
            "args_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15) "
            "ON CONFLICT (environment_id, chain_id, block_number, log_index) DO NOTHING");
        m_insTransfer = std::make_unique<SqliteStatement>(
            m_db, "INSERT INTO transfer_events (environment_id, chain_id, block_number, log_index, "
                  "tx_hash, contract, from_addr, to_addr, value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                  "?7, ?8, ?9) "
                  "ON CONFLICT (environment_id, chain_id, block_number, log_index) DO NOTHING");
        m_insOutbox = std::make_unique<SqliteStatement>(
            m_db, "INSERT INTO outbox (environment_id, chain_id, block_number, event_key, payload) "
                  "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (environment_id, chain_id, event_key) "
                  "DO NOTHING");
    }
    CommitStats stats;
    const auto chainId = std::int64_t(m_chainId);
    const QByteArray chainIdText = QByteArray::number(chainId);
    store::WriteTransaction tx(m_db);

    for (const auto& b : batch.blocks) {
        m_insBlock->bind(1, m_envUtf8);
        m_insBlock->bind(2, chainId);
        m_insBlock->bind(3, std::int64_t(b.number));
        m_insBlock->bind(4, b.hash.toHexLatin1());
        m_insBlock->bind(5, b.parentHash.toHexLatin1());
        m_insBlock->bind(6, std::int64_t(b.timestamp));
        stats.blocks += m_insBlock->execute();
    }

    QHash<HolderKey, HolderDelta> deltas;
    for (qsizetype li = 0; li < batch.logs.size(); ++li) {
        const chain::LogEntry& log = batch.logs[li];
        const abi::EventDecoding abiDecoding =
            li < batch.decodings.size() ? batch.decodings[li] : abi::EventDecoding{};
        const TransferDecodeResult decoded = decodeTransfer(log);
        const auto* failure = std::get_if<TransferDecodeFailure>(&decoded);
        const QByteArray blockHash = log.blockHash.toHexLatin1();
        const QByteArray txHash = log.transactionHash.toHexLatin1();
        const QByteArray blockNumber = QByteArray::number(log.blockNumber);
        const QByteArray logIndex = QByteArray::number(log.logIndex);
        m_insLog->bind(1, m_envUtf8);
        m_insLog->bind(2, chainId);
        m_insLog->bind(3, std::int64_t(log.blockNumber));
        m_insLog->bind(4, blockHash);
        m_insLog->bind(5, std::int64_t(log.logIndex));
        m_insLog->bind(6, txHash);
        m_insLog->bind(7, log.address.toHexLatin1());
        for (int t = 0; t < 4; ++t) {
            if (t < log.topics.size())
                m_insLog->bind(8 + t, log.topics[t].toHexLatin1());
            else
                m_insLog->bindNull(8 + t);
        }
        m_insLog->bind(12, chain::hex::encodeDataLatin1(log.data));
        QStringList errors;
        if (failure)
            errors << failure->reason;
        if (abiDecoding.status == abi::EventDecoding::Status::Failed)
            errors << QStringLiteral("ABI: ") + abiDecoding.error;
        if (errors.isEmpty())
            m_insLog->bindNull(13);
        else
            m_insLog->bind(13, errors.join(QStringLiteral("; ")).toUtf8());
        if (abiDecoding.eventName.isEmpty())
            m_insLog->bindNull(14);
        else
            m_insLog->bind(14, abiDecoding.eventName.toUtf8());
        if (abiDecoding.status == abi::EventDecoding::Status::Decoded)
            m_insLog->bind(15, abiDecoding.argsJson);
        else
            m_insLog->bindNull(15);
        if (m_insLog->execute() != 1)
            continue; // already stored: its projection was applied when it was
        ++stats.logs;
        switch (abiDecoding.status) {
        case abi::EventDecoding::Status::Decoded:
            ++stats.abiDecoded;
            break;
        case abi::EventDecoding::Status::Unmatched:
            ++stats.abiUnmatched;
            break;
        case abi::EventDecoding::Status::Failed:
            ++stats.abiFailures;
            break;
        case abi::EventDecoding::Status::NotConfigured:
            break;
        }
        if (failure) {
            ++stats.decodeFailures;
            continue;
        }
        const auto* t = std::get_if<Transfer>(&decoded);
        if (!t)
            continue;
        const QByteArray contract = t->contract.toHexLatin1();
        const QByteArray from = t->from.toHexLatin1();
        const QByteArray to = t->to.toHexLatin1();
        const QByteArray value = QByteArray::fromStdString(t->value.str());
        m_insTransfer->bind(1, m_envUtf8);
        m_insTransfer->bind(2, chainId);
        m_insTransfer->bind(3, std::int64_t(log.blockNumber));
        m_insTransfer->bind(4, std::int64_t(log.logIndex));
        m_insTransfer->bind(5, txHash);
        m_insTransfer->bind(6, contract);
        m_insTransfer->bind(7, from);
        m_insTransfer->bind(8, to);
        m_insTransfer->bind(9, value);
        if (m_insTransfer->execute() != 1)
            continue;
        ++stats.transfers;
        // The zero address is the mint/burn side, not a holder.
        const SignedAmount amount(t->value);
        if (!t->from.isZero()) {
            HolderDelta& d =
                deltas[HolderKey{QString::fromLatin1(contract), QString::fromLatin1(from)}];
            d.amount -= amount;
            ++d.sides;
        }
        if (!t->to.isZero()) {
            HolderDelta& d =
                deltas[HolderKey{QString::fromLatin1(contract), QString::fromLatin1(to)}];
            d.amount += amount;
            ++d.sides;
        }

        // The side effect is enqueued with the data, never sent from here (seed 000). Its key
        // is the chain coordinate transfer:<block>:<blockHash>:<logIndex>, so a consumer can
        // deduplicate and a transfer re-included in another block is a new event (the
        // InvariantChecker reads this format). Every payload field is a number or 0x-hex,
        // so plain concatenation is valid JSON.
        const QByteArray key = "transfer:" + blockNumber + ':' + blockHash + ':' + logIndex;
        const QByteArray payload = "{\"type\":\"transfer\",\"chainId\":" + chainIdText +
                                   ",\"blockNumber\":" + blockNumber + ",\"blockHash\":\"" +
                                   blockHash + "\",\"logIndex\":" + logIndex + ",\"txHash\":\"" +
                                   txHash + "\",\"contract\":\"" + contract + "\",\"from\":\"" +
                                   from + "\",\"to\":\"" + to + "\",\"value\":\"" + value + "\"}";
        m_insOutbox->bind(1, m_envUtf8);
        m_insOutbox->bind(2, chainId);
        m_insOutbox->bind(3, std::int64_t(log.blockNumber));
        m_insOutbox->bind(4, key);
        m_insOutbox->bind(5, payload);
        stats.outboxRows += m_insOutbox->execute();
    }
    m_balances.apply(deltas, batch.blocks.last().number);

    // The checkpoint moves in the same transaction as the data it covers.
    const auto& last = batch.blocks.last();
    if (expected) {
        m_checkpoints.advance(*expected, last.number, last.hash);
    } else {
        Checkpoint first;
        first.number = last.number;
        first.hash = last.hash;
        first.startBlock = startBlock;
        first.policyVersion = policyVersion;
        first.generation = generation;
        m_checkpoints.insertFirst(first);
    }
    if (inTransaction)
        inTransaction();
    crashPoint("before-commit");
    tx.commit();
    crashPoint("after-commit");
    return stats;
}

} // namespace forkscope::indexer
