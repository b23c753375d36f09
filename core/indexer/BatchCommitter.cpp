#include "BatchCommitter.h"
#include "BalanceBook.h"
#include "CheckpointStore.h"
#include "CrashPoints.h"
#include "TransferDecoder.h"
#include "chain/Hex.h"
#include "store/Database.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>

namespace forkscope::indexer {

QString transferEventKey(std::uint64_t blockNumber, const chain::Hash32& blockHash,
                         std::uint64_t logIndex)
{
    return QStringLiteral("transfer:") + QString::number(blockNumber) + QLatin1Char(':') +
           blockHash.toHex() + QLatin1Char(':') + QString::number(logIndex);
}

BatchCommitter::BatchCommitter(store::Database& db, QString environmentId, std::uint64_t chainId,
                               CheckpointStore& checkpoints, BalanceBook& balances)
    : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId), m_checkpoints(checkpoints),
      m_balances(balances)
{
}

CommitStats BatchCommitter::commit(const std::optional<Checkpoint>& expected,
                                   const VerifiedBatch& batch, std::uint64_t startBlock,
                                   const QString& policyVersion, int generation,
                                   const std::function<void()>& inTransaction)
{
    Q_ASSERT(!batch.blocks.isEmpty());
    CommitStats stats;
    const qint64 chainId = qint64(m_chainId);
    store::WriteTransaction tx(m_db);

    QSqlQuery& insBlock = m_db.prepared(QStringLiteral(
        "INSERT INTO blocks (environment_id, chain_id, block_number, block_hash, parent_hash, "
        "block_timestamp) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (environment_id, chain_id, block_number) DO NOTHING"));
    for (const auto& b : batch.blocks) {
        insBlock.bindValue(0, m_env);
        insBlock.bindValue(1, chainId);
        insBlock.bindValue(2, qint64(b.number));
        insBlock.bindValue(3, b.hash.toHex());
        insBlock.bindValue(4, b.parentHash.toHex());
        insBlock.bindValue(5, qint64(b.timestamp));
        m_db.exec(insBlock);
        stats.blocks += insBlock.numRowsAffected();
    }

    QSqlQuery& insLog = m_db.prepared(QStringLiteral(
        "INSERT INTO logs (environment_id, chain_id, block_number, block_hash, log_index, "
        "tx_hash, address, topic0, topic1, topic2, topic3, data, decode_error) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (environment_id, chain_id, block_number, log_index) DO NOTHING"));
    QSqlQuery& insTransfer = m_db.prepared(QStringLiteral(
        "INSERT INTO transfer_events (environment_id, chain_id, block_number, log_index, "
        "tx_hash, contract, from_addr, to_addr, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (environment_id, chain_id, block_number, log_index) DO NOTHING"));
    QSqlQuery& insOutbox = m_db.prepared(QStringLiteral(
        "INSERT INTO outbox (environment_id, chain_id, block_number, event_key, payload) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (environment_id, chain_id, event_key) DO NOTHING"));

    QHash<HolderKey, SignedAmount> deltas;
    for (const auto& log : batch.logs) {
        const TransferDecodeResult decoded = decodeTransfer(log);
        const QString blockHash = log.blockHash.toHex();
        const QString txHash = log.transactionHash.toHex();
        const auto* failure = std::get_if<TransferDecodeFailure>(&decoded);
        insLog.bindValue(0, m_env);
        insLog.bindValue(1, chainId);
        insLog.bindValue(2, qint64(log.blockNumber));
        insLog.bindValue(3, blockHash);
        insLog.bindValue(4, qint64(log.logIndex));
        insLog.bindValue(5, txHash);
        insLog.bindValue(6, log.address.toHex());
        for (int t = 0; t < 4; ++t)
            insLog.bindValue(7 + t, t < log.topics.size() ? QVariant(log.topics[t].toHex())
                                                          : QVariant(QMetaType(QMetaType::QString)));
        insLog.bindValue(11, chain::hex::encodeData(log.data));
        insLog.bindValue(12, failure ? QVariant(failure->reason)
                                     : QVariant(QMetaType(QMetaType::QString)));
        m_db.exec(insLog);
        if (insLog.numRowsAffected() != 1)
            continue; // already stored: its projection was applied when it was
        ++stats.logs;
        if (failure) {
            ++stats.decodeFailures;
            continue;
        }
        const auto* t = std::get_if<Transfer>(&decoded);
        if (!t)
            continue;
        const QString contract = t->contract.toHex();
        const QString from = t->from.toHex();
        const QString to = t->to.toHex();
        const QString value = chain::u256::toDecimal(t->value);
        insTransfer.bindValue(0, m_env);
        insTransfer.bindValue(1, chainId);
        insTransfer.bindValue(2, qint64(log.blockNumber));
        insTransfer.bindValue(3, qint64(log.logIndex));
        insTransfer.bindValue(4, txHash);
        insTransfer.bindValue(5, contract);
        insTransfer.bindValue(6, from);
        insTransfer.bindValue(7, to);
        insTransfer.bindValue(8, value);
        m_db.exec(insTransfer);
        if (insTransfer.numRowsAffected() != 1)
            continue;
        ++stats.transfers;
        // The zero address is the mint/burn side, not a holder.
        const SignedAmount amount(t->value);
        if (!t->from.isZero())
            deltas[HolderKey{contract, from}] -= amount;
        if (!t->to.isZero())
            deltas[HolderKey{contract, to}] += amount;

        // The side effect is enqueued with the data, never sent from here (seed 000).
        const QString blockNumber = QString::number(log.blockNumber);
        const QString logIndex = QString::number(log.logIndex);
        const QString key = QStringLiteral("transfer:") + blockNumber + QLatin1Char(':') +
                            blockHash + QLatin1Char(':') + logIndex;
        // Every field is a number or 0x-hex, so plain concatenation is valid JSON (and far
        // cheaper than a QJsonDocument per event on the hot path).
        const QString payload =
            QStringLiteral("{\"type\":\"transfer\",\"chainId\":") + QString::number(chainId) +
            QStringLiteral(",\"blockNumber\":") + blockNumber + QStringLiteral(",\"blockHash\":\"") +
            blockHash + QStringLiteral("\",\"logIndex\":") + logIndex +
            QStringLiteral(",\"txHash\":\"") + txHash + QStringLiteral("\",\"contract\":\"") +
            contract + QStringLiteral("\",\"from\":\"") + from + QStringLiteral("\",\"to\":\"") + to +
            QStringLiteral("\",\"value\":\"") + value + QStringLiteral("\"}");
        insOutbox.bindValue(0, m_env);
        insOutbox.bindValue(1, chainId);
        insOutbox.bindValue(2, qint64(log.blockNumber));
        insOutbox.bindValue(3, key);
        insOutbox.bindValue(4, payload);
        m_db.exec(insOutbox);
        stats.outboxRows += insOutbox.numRowsAffected();
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
