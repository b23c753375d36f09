#include "ContractReader.h"
#include "Database.h"

#include <QSqlQuery>
#include <QSqlRecord>

namespace forkscope::store {

ContractRows::~ContractRows() = default;
ContractSnapshot::~ContractSnapshot() = default;
ContractReader::~ContractReader() = default;

qint64 ContractReader::scalar(const QString& sql, const QVariantList& args)
{
    const auto rows = query(sql, args);
    return rows->next() ? rows->value(0).toLongLong() : 0;
}

namespace {
class SqliteRows : public ContractRows
{
public:
    explicit SqliteRows(QSqlQuery q) : m_q(std::move(q)) {}
    bool next() override { return m_q.next(); }
    QVariant value(int column) const override { return m_q.value(column); }
    int columns() const override { return m_q.record().count(); }

private:
    QSqlQuery m_q;
};
} // namespace

std::unique_ptr<ContractRows> SqliteContractReader::query(const QString& sql,
                                                          const QVariantList& args)
{
    return std::make_unique<SqliteRows>(m_db.run(sql, args));
}

std::optional<CheckpointFacts> SqliteContractReader::checkpoint(const QString& environmentId,
                                                                qint64 chainId,
                                                                const QString& sourceId)
{
    QSqlQuery q = m_db.run(QStringLiteral("SELECT block_number, block_hash, start_block, "
                                          "generation, updated_at, policy_version, verified_at "
                                          "FROM indexer_checkpoints WHERE environment_id = ? AND "
                                          "chain_id = ? AND source_id = ?"),
                           {environmentId, chainId, sourceId});
    if (!q.next())
        return std::nullopt;
    return CheckpointFacts{q.value(0).toLongLong(), q.value(1).toString(), q.value(2).toLongLong(),
                           q.value(3).toLongLong(), q.value(4).toString(), q.value(5).toString(),
                           q.value(6).toString()};
}

namespace {
class SqliteSnapshot : public ContractSnapshot
{
public:
    explicit SqliteSnapshot(Database& db) : m_snapshot(db) {}

private:
    ReadSnapshot m_snapshot;
};
} // namespace

std::unique_ptr<ContractSnapshot> SqliteContractReader::snapshot()
{
    return std::make_unique<SqliteSnapshot>(m_db);
}

QString SqliteContractReader::describe() const
{
    return m_db.path();
}

} // namespace forkscope::store
