#pragma once

#include <QString>
#include <QVariant>
#include <QVariantList>
#include <memory>
#include <optional>

namespace forkscope::store {

class Database;

// The rows of one query on the contract's read surface, forward only. value() is a null
// QVariant for SQL NULL and otherwise what the store returned (text on PostgreSQL): read it
// with toString(), toLongLong() and the like, as a QSqlQuery's.
class ContractRows
{
public:
    virtual ~ContractRows();
    virtual bool next() = 0;
    virtual QVariant value(int column) const = 0;
    virtual int columns() const = 0;
};

// Holds one read snapshot open until destroyed: every read under it sees one state of the
// database while writers commit (a report or an audit never mixes two commits).
class ContractSnapshot
{
public:
    virtual ~ContractSnapshot();
};

// A checkpoint as the invariant check and the local API need it, whatever table holds it.
struct CheckpointFacts
{
    qint64 number = -1;
    QString hash;          // 0x hex
    qint64 startBlock = 0; // the first block the environment indexes
    qint64 generation = 0; // the projection generation that wrote the rows
    QString updatedAt;     // UTC ISO 8601
    QString policyVersion;
    QString verifiedAt; // empty: never verified on chain
};

// An environment's outbox rows by state (what the status bar, the panel and the report show),
// and when the oldest row still waiting happened on chain (its block's time).
struct OutboxTally
{
    qint64 pending = 0;   // neither delivered nor refused
    qint64 delivered = 0; // delivered_at set
    qint64 failed = 0;    // refused for good, never delivered
    std::optional<qint64> oldestPendingBlockTime;
};

// The contract's read surface (docs/design.md, "Database contract": `blocks`, `logs`,
// `transfer_events`, `token_balances`, `outbox`, `reorg_events`, `backfill_ranges`: lowercase 0x
// hex text and decimal strings) on either store, so that the report and the invariant check are one
// code over SQLite and PostgreSQL. Queries take `?` placeholders and only ever read.
class ContractReader
{
public:
    virtual ~ContractReader();
    virtual std::unique_ptr<ContractRows> query(const QString& sql, const QVariantList& args) = 0;
    // The checkpoint row of `indexer_checkpoints`; nullopt: nothing indexed yet.
    std::optional<CheckpointFacts> checkpoint(const QString& environmentId, qint64 chainId,
                                              const QString& sourceId);
    // The file or the URL (without a password), for messages.
    virtual QString describe() const = 0;
    // A read snapshot; inside one already open, it joins it.
    virtual std::unique_ptr<ContractSnapshot> snapshot() = 0;
    // The outbox's counts, read from the store's own tables: rendering every row through the
    // `outbox` view only to count it would cost what the view renders.
    virtual OutboxTally outboxTally(const QString& environmentId, qint64 chainId) = 0;
    // reorg_diff_items with two more columns, `id` and `phase`: ordered by phase, id, its rows
    // are in the order the rollback recorded them (a view has no order of its own).
    virtual QString reorgDiffRecordedSql() const = 0;
    // Below this block every Transfer's outbox row is stored, so a rendered (id NULL) row
    // there means a stored one was deleted (SQLite's outbox cursor,
    // PendingOutboxContract.h). 0 on PostgreSQL, whose view also shows a stored row nothing
    // touched yet with id NULL (rows stored before contract v19, or by a delivery round
    // before it sends them), so no NULL id there tells of a deleted row.
    virtual qint64 storedOutboxBelow(const QString& environmentId, qint64 chainId);

    // The first column of the first row, or 0 when there is none.
    qint64 scalar(const QString& sql, const QVariantList& args);
};

class SqliteContractReader : public ContractReader
{
public:
    explicit SqliteContractReader(Database& db) : m_db(db) {}
    std::unique_ptr<ContractRows> query(const QString& sql, const QVariantList& args) override;
    QString describe() const override;
    OutboxTally outboxTally(const QString& environmentId, qint64 chainId) override;
    QString reorgDiffRecordedSql() const override;
    qint64 storedOutboxBelow(const QString& environmentId, qint64 chainId) override;
    std::unique_ptr<ContractSnapshot> snapshot() override;

private:
    Database& m_db;
};

} // namespace forkscope::store
