#pragma once

#include "Checkpoint.h"
#include "VerifiedBatch.h"

#include <QList>
#include <functional>
#include <memory>
#include <optional>

namespace forkscope::store {
class Database;
class MultiRowInsert;
class SqliteStatement;
} // namespace forkscope::store

namespace forkscope::indexer {

class BalanceBook;
class CheckpointStore;

// Writes a batch and moves the checkpoint in ONE transaction (docs/design.md, "Data and
// checkpoint commit together"). Committing the checkpoint first would lose data forever on
// a crash in between; committing data first in a separate transaction is harmless but
// wasteful. Together, a crash leaves either both or neither.
class BatchCommitter
{
public:
    BatchCommitter(store::Database& db, QString environmentId, std::uint64_t chainId,
                   CheckpointStore& checkpoints, BalanceBook& balances);
    ~BatchCommitter();

    // `expected` is the checkpoint the batch continues (nullopt: the first batch, starting
    // at `startBlock`). Throws CheckpointMovedError if it changed; nothing is written then.
    // `inTransaction` runs inside the same transaction (e.g. marking a backfill range done).
    CommitStats commit(const std::optional<Checkpoint>& expected, const VerifiedBatch& batch,
                       std::uint64_t startBlock, const QString& policyVersion, int generation,
                       const std::function<void()>& inTransaction = {});

    // A batch of a contract added to the environment (docs/sources.md): the same rows and
    // projection over blocks already stored, in ONE transaction; `inTransaction` runs first,
    // checking the batch still fits and moving the source's checkpoint, not the
    // environment's.
    CommitStats commitSource(const VerifiedBatch& batch,
                             const std::function<void()>& inTransaction);

private:
    // Blocks (those not stored yet), logs, Transfers, balances, outbox and children, inside
    // the caller's transaction.
    CommitStats writeRows(const VerifiedBatch& batch);

    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
    CheckpointStore& m_checkpoints;
    BalanceBook& m_balances;
    QByteArray m_envUtf8;
    std::unique_ptr<store::SqliteStatement> m_insBlock, m_anyStoredKey, m_repointStoredKey,
        m_findTemplate, m_lowerOutboxCursor, m_insTemplate, m_anyStoredLog, m_insChild;
    std::unique_ptr<store::MultiRowInsert> m_insLogs;
};

} // namespace forkscope::indexer
