#include "BatchCommitter.h"
#include "ArgsTemplate.h"
#include "BalanceBook.h"
#include "CheckpointStore.h"
#include "CrashPoints.h"
#include "StoredDecodeError.h"
#include "TransferDecoder.h"
#include "chain/Hex.h"
#include "store/Database.h"
#include "store/MultiRowInsert.h"
#include "store/SqliteStatement.h"

#include <QSqlQuery>
#include <algorithm>

namespace forkscope::indexer {

namespace {
// Rows per INSERT statement (store/MultiRowInsert.h); bench/README.md has the figures.
constexpr int kRowsPerStatement = 64;

bool strictlyOrdered(const QList<chain::LogEntry>& logs)
{
    return std::adjacent_find(logs.cbegin(), logs.cend(), [](const auto& a, const auto& b) {
               return a.position() >= b.position();
           }) == logs.cend();
}
} // namespace

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
    store::WriteTransaction tx(m_db);
    CommitStats stats = writeRows(batch);

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

CommitStats BatchCommitter::commitSource(const VerifiedBatch& batch,
                                         const std::function<void()>& inTransaction)
{
    Q_ASSERT(!batch.blocks.isEmpty());
    store::WriteTransaction tx(m_db);
    inTransaction(); // checks first: nothing is written for a batch that no longer fits
    CommitStats stats = writeRows(batch);
    crashPoint("source-before-commit");
    tx.commit();
    return stats;
}

CommitStats BatchCommitter::writeRows(const VerifiedBatch& batch)
{
    using store::SqliteStatement;
    // Contract v4 (store/BinaryContract.h): hashes, addresses and topics go in as BLOBs; a
    // Transfer is its log row plus a decimal value, and its pending outbox row is that log.
    if (!m_insBlock) {
        m_insBlock = std::make_unique<SqliteStatement>(
            m_db, "INSERT INTO block_store (environment_id, chain_id, block_number, block_hash, "
                  "parent_hash, block_timestamp) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                  "ON CONFLICT (environment_id, chain_id, block_number) DO NOTHING");
        m_insLogs = std::make_unique<store::MultiRowInsert>(
            m_db,
            "INSERT INTO log_store (environment_id, chain_id, block_number, log_index, block_hash, "
            "tx_hash, address, topic0, topic1, topic2, topic3, data, decode_error, event_name, "
            "args_json, transfer_value, args_template_id)",
            17, "ON CONFLICT (environment_id, chain_id, block_number, log_index) DO NOTHING",
            kRowsPerStatement);
        m_lowerOutboxCursor = std::make_unique<SqliteStatement>(
            m_db, "UPDATE outbox_cursor SET block_number = ?3 WHERE environment_id = ?1 AND "
                  "chain_id = ?2 AND block_number > ?3");
        m_anyStoredLog = std::make_unique<SqliteStatement>(
            m_db, "SELECT 1 FROM log_store WHERE environment_id = ?1 AND chain_id = ?2 AND "
                  "block_number BETWEEN ?3 AND ?4 LIMIT 1");
        m_anyStoredKey = std::make_unique<SqliteStatement>(
            m_db, "SELECT 1 FROM outbox_store WHERE environment_id = ?1 AND chain_id = ?2 AND "
                  "event_key >= 'transfer:' AND event_key < 'transfer;' LIMIT 1");
        m_findTemplate = std::make_unique<SqliteStatement>(
            m_db, "SELECT id FROM args_templates WHERE template = ?1");
        m_insTemplate = std::make_unique<SqliteStatement>(
            m_db, "INSERT INTO args_templates (template) VALUES (?1)");
        m_insChild = std::make_unique<SqliteStatement>(
            m_db, "INSERT INTO child_store (environment_id, chain_id, child, factory, "
                  "block_number, log_index, block_hash, tx_hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                  "?7, ?8) ON CONFLICT (environment_id, chain_id, child) DO NOTHING");
        m_repointStoredKey = std::make_unique<SqliteStatement>(
            m_db, "UPDATE outbox_store SET log_index = ?4, event_key = NULL, payload = NULL "
                  "WHERE environment_id = ?1 AND chain_id = ?2 AND event_key = ?3");
    }
    CommitStats stats;
    const auto chainId = std::int64_t(m_chainId);

    for (const auto& b : batch.blocks) {
        m_insBlock->bind(1, m_envUtf8);
        m_insBlock->bind(2, chainId);
        m_insBlock->bind(3, std::int64_t(b.number));
        m_insBlock->bindBytes(4, b.hash);
        m_insBlock->bindBytes(5, b.parentHash);
        m_insBlock->bind(6, std::int64_t(b.timestamp));
        stats.blocks += m_insBlock->execute();
    }

    // A delivered Transfer whose block was reorged away keeps its outbox row with the key
    // stored as text (ReorgRollback). If the chain comes back to that very block, the
    // re-indexed log renders the same key: it was delivered once and must not be again.
    m_anyStoredKey->bind(1, m_envUtf8);
    m_anyStoredKey->bind(2, chainId);
    const bool checkStoredKeys = m_anyStoredKey->hasRow();

    // Template ids are looked up per batch, never cached across transactions: one that
    // rolled back would leave an id that names nothing.
    QHash<QByteArray, std::int64_t> templateIds;
    const auto templateId = [&](const QByteArray& tmpl) {
        if (const auto it = templateIds.constFind(tmpl); it != templateIds.cend())
            return *it;
        m_findTemplate->bind(1, tmpl);
        std::int64_t id = 0;
        if (m_findTemplate->next()) {
            id = m_findTemplate->int64(0);
            m_findTemplate->reset();
        } else {
            m_insTemplate->bind(1, tmpl);
            m_insTemplate->execute();
            id = m_insTemplate->lastInsertRowId();
        }
        templateIds.insert(tmpl, id);
        return id;
    };

    // A log row already stored was projected (balances, outbox) when it was stored, so each
    // row's own change count decides whether to project it. In the usual batch no block of
    // it holds a stored log and the logs are strictly ordered: every row is new, so the rows
    // go in groups and their count is checked once, at the end.
    m_anyStoredLog->bind(1, m_envUtf8);
    m_anyStoredLog->bind(2, chainId);
    m_anyStoredLog->bind(3, std::int64_t(batch.blocks.first().number));
    m_anyStoredLog->bind(4, std::int64_t(batch.blocks.last().number));
    const bool allNew = !m_anyStoredLog->hasRow() && strictlyOrdered(batch.logs);
    m_insLogs->start(batch.logs.size(), allNew);
    qint64 logRowsStored = 0;

    HolderDeltas deltas;
    deltas.reserve(std::size_t(batch.logs.size()) * 2);
    for (qsizetype li = 0; li < batch.logs.size(); ++li) {
        const chain::LogEntry& log = batch.logs[li];
        const abi::EventDecoding abiDecoding =
            li < batch.decodings.size() ? batch.decodings[li] : abi::EventDecoding{};
        const TransferDecodeResult decoded = decodeTransfer(log);
        const auto* failure = std::get_if<TransferDecodeFailure>(&decoded);
        const auto* t = std::get_if<Transfer>(&decoded);
        const QByteArray decodeError = storedDecodeError(failure, abiDecoding);
        const QByteArray value = t ? QByteArray::fromStdString(t->value.str()) : QByteArray();
        std::optional<QByteArray> tmpl;
        if (t && abiDecoding.status == abi::EventDecoding::Status::Decoded)
            tmpl = argsTemplateFor(abiDecoding.argsJson, t->from.toHexLatin1(), t->to.toHexLatin1(),
                                   value);
        const std::optional<std::int64_t> tmplId =
            tmpl ? std::optional(templateId(*tmpl)) : std::nullopt;
        const int stored = m_insLogs->add([&](store::RowBinder& row) {
            row.bind(1, m_envUtf8);
            row.bind(2, chainId);
            row.bind(3, std::int64_t(log.blockNumber));
            row.bind(4, std::int64_t(log.logIndex));
            row.bindBytes(5, log.blockHash);
            row.bindBytes(6, log.transactionHash);
            row.bindBytes(7, log.address);
            for (int i = 0; i < 4; ++i) {
                if (i < log.topics.size())
                    row.bindBytes(8 + i, log.topics[i]);
                else
                    row.bindNull(8 + i);
            }
            row.bindBlob(12, log.data.constData(), int(log.data.size()));
            if (decodeError.isEmpty())
                row.bindNull(13);
            else
                row.bind(13, decodeError);
            if (abiDecoding.eventName.isEmpty())
                row.bindNull(14);
            else
                row.bind(14, abiDecoding.eventName.toUtf8());
            if (tmplId) {
                row.bindNull(15);
                row.bind(17, *tmplId);
            } else {
                if (abiDecoding.status == abi::EventDecoding::Status::Decoded)
                    row.bind(15, abiDecoding.argsJson);
                else
                    row.bindNull(15);
                row.bindNull(17);
            }
            if (t)
                row.bind(16, value);
            else
                row.bindNull(16);
        });
        logRowsStored += stored;
        if (!allNew && stored != 1)
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
        if (!t)
            continue;
        ++stats.transfers;
        // The zero address is the mint/burn side, not a holder.
        const SignedAmount amount(t->value);
        if (!t->from.isZero())
            deltas.addSide(HolderKey{t->contract, t->from}, -amount, log.blockNumber);
        if (!t->to.isZero())
            deltas.addSide(HolderKey{t->contract, t->to}, amount, log.blockNumber);

        // The side effect is enqueued with the data, never sent from here (docs/design.md,
        // "The outbox"): a Transfer's log row is its pending outbox row, rendered by the
        // `outbox` view until delivery first touches it and stores it
        // (store/PendingOutboxContract.h). Its key is the chain coordinate
        // transfer:<block>:<blockHash>:<logIndex>, so a consumer can deduplicate and a
        // transfer re-included in another block is a new event (the InvariantChecker reads
        // this format).
        if (checkStoredKeys) {
            // The very event was delivered before a reorg took its block, and its row kept
            // the key as text. It names this log again, so the log renders no second,
            // pending row: what was delivered once is not delivered again.
            m_repointStoredKey->bind(1, m_envUtf8);
            m_repointStoredKey->bind(2, chainId);
            m_repointStoredKey->bind(3, "transfer:" + QByteArray::number(log.blockNumber) + ':' +
                                            log.blockHash.toHexLatin1() + ':' +
                                            QByteArray::number(log.logIndex));
            m_repointStoredKey->bind(4, std::int64_t(log.logIndex));
            if (m_repointStoredKey->execute() > 0)
                continue;
        }
        ++stats.outboxRows;
    }
    m_insLogs->finish();
    if (allNew && logRowsStored != batch.logs.size())
        throw store::StoreError(
            store::StoreError::Kind::Query,
            QStringLiteral("blocks %1-%2: %3 of %4 log rows were new, though none was stored "
                           "before; nothing of the batch was committed")
                .arg(batch.blocks.first().number)
                .arg(batch.blocks.last().number)
                .arg(logRowsStored)
                .arg(batch.logs.size()));
    // The children the batch's creation events announce go with the blocks that hold them.
    for (const wire::ChildCreation& c : batch.children) {
        m_insChild->bind(1, m_envUtf8);
        m_insChild->bind(2, chainId);
        m_insChild->bindBytes(3, c.child);
        m_insChild->bindBytes(4, c.factory);
        m_insChild->bind(5, std::int64_t(c.blockNumber));
        m_insChild->bind(6, std::int64_t(c.logIndex));
        m_insChild->bindBytes(7, c.blockHash);
        m_insChild->bindBytes(8, c.txHash);
        stats.children += m_insChild->execute();
    }
    // The dispatcher looks for rendered rows only from the outbox cursor up; a batch below it
    // (a repair, a backfill) brings it down to its first block, in this same transaction.
    m_lowerOutboxCursor->bind(1, m_envUtf8);
    m_lowerOutboxCursor->bind(2, chainId);
    m_lowerOutboxCursor->bind(3, std::int64_t(batch.blocks.first().number));
    m_lowerOutboxCursor->execute();
    m_balances.apply(std::move(deltas));
    return stats;
}

} // namespace forkscope::indexer
