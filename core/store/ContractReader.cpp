#include "ContractReader.h"
#include "Database.h"
#include "PendingOutboxContract.h"
#include "SqliteStatement.h"

#include <QSqlQuery>

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
// Rows straight from SQLite, not through QSqlQuery: its QSQLITE driver has each text
// column converted to UTF-16 and copied into a row cache first, which was a fifth of the
// invariant check's CPU (bench/README.md's history). A step that fails throws,
// as every other statement here does; QSqlQuery::next() reported it as the end of the rows.
class SqliteRows : public ContractRows
{
public:
    // Runs the statement to its first row at once, as QSqlQuery::exec does: a statement
    // that writes has written when query() returns, and one that fails has thrown.
    SqliteRows(Database& db, const QString& sql, const QVariantList& args) : m_stmt(db, sql)
    {
        for (qsizetype i = 0; i < args.size(); ++i)
            m_stmt.bind(int(i) + 1, args.at(i));
        m_done = !m_stmt.next();
    }
    bool next() override
    {
        if (m_done)
            return false; // never stepped again: a reset statement would run anew
        if (!m_started)
            return m_started = true;
        m_done = !m_stmt.next();
        return !m_done;
    }
    QVariant value(int column) const override { return m_stmt.value(column); }
    int columns() const override { return m_stmt.columnCount(); }

private:
    SqliteStatement m_stmt;
    bool m_started = false; // the first row, stepped to by the constructor, was given
    bool m_done = false;
};
} // namespace

std::unique_ptr<ContractRows> SqliteContractReader::query(const QString& sql,
                                                          const QVariantList& args)
{
    m_db.checkBeforeStatement();
    return std::make_unique<SqliteRows>(m_db, sql, args);
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

qint64 ContractReader::storedOutboxBelow(const QString&, qint64)
{
    return 0;
}

qint64 SqliteContractReader::storedOutboxBelow(const QString& environmentId, qint64 chainId)
{
    return outboxCursor(m_db, environmentId, std::uint64_t(chainId));
}

} // namespace forkscope::store
