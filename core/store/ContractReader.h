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
    qint64 generation = 0; // the compare-and-swap token, bumped by every move
    QString updatedAt;     // UTC ISO 8601
    // Not recorded on a shared index (each follower runs its own --confirmations): empty.
    QString policyVersion;
    QString verifiedAt; // empty: never verified on chain, or not recorded (shared index)
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
    // The checkpoint row, which is not laid out alike: a contract table in SQLite, a
    // coordination table in PostgreSQL.
    virtual std::optional<CheckpointFacts> checkpoint(const QString& environmentId, qint64 chainId,
                                                      const QString& sourceId) = 0;
    // The file or the URL (without a password), for messages.
    virtual QString describe() const = 0;
    // A read snapshot; inside one already open, it joins it.
    virtual std::unique_ptr<ContractSnapshot> snapshot() = 0;
    // Below this block every Transfer's outbox row is stored, so a rendered (id NULL) row
    // there means a stored one was deleted (SQLite's outbox cursor,
    // PendingOutboxContract.h). 0 where every row is stored (PostgreSQL).
    virtual qint64 storedOutboxBelow(const QString& environmentId, qint64 chainId);

    // The first column of the first row, or 0 when there is none.
    qint64 scalar(const QString& sql, const QVariantList& args);
};

class SqliteContractReader : public ContractReader
{
public:
    explicit SqliteContractReader(Database& db) : m_db(db) {}
    std::unique_ptr<ContractRows> query(const QString& sql, const QVariantList& args) override;
    std::optional<CheckpointFacts> checkpoint(const QString& environmentId, qint64 chainId,
                                              const QString& sourceId) override;
    QString describe() const override;
    qint64 storedOutboxBelow(const QString& environmentId, qint64 chainId) override;
    std::unique_ptr<ContractSnapshot> snapshot() override;

private:
    Database& m_db;
};

} // namespace forkscope::store
