#include "ContractReader.h"
#include "Database.h"
#include "PendingOutboxContract.h"
#include "ReorgDiffContract.h"
#include "SqliteStatement.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/RenderedOutbox.h"

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

std::optional<CheckpointFacts> ContractReader::checkpoint(const QString& environmentId,
                                                          qint64 chainId, const QString& sourceId)
{
    const auto q = query(QStringLiteral("SELECT block_number, block_hash, start_block, generation, "
                                        "updated_at, policy_version, verified_at FROM "
                                        "indexer_checkpoints WHERE environment_id = ? AND "
                                        "chain_id = ? AND source_id = ?"),
                         {environmentId, chainId, sourceId});
    if (!q->next())
        return std::nullopt;
    return CheckpointFacts{q->value(0).toLongLong(), q->value(1).toString(),
                           q->value(2).toLongLong(), q->value(3).toLongLong(),
                           q->value(4).toString(),   q->value(5).toString(),
                           q->value(6).toString()};
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

OutboxTally SqliteContractReader::outboxTally(const QString& environmentId, qint64 chainId)
{
    const outbox::OutboxCounts rows = outbox::countRows(m_db, environmentId, quint64(chainId));
    OutboxTally t{rows.pending, rows.delivered, rows.failed, std::nullopt};
    // The oldest row still waiting, aged by its block's time, from the binary tables: a
    // pending row is stored (tried before) or rendered from its log (never touched).
    const std::optional<std::int64_t> firstRendered =
        outbox::firstRenderedBlock(m_db, environmentId, quint64(chainId));
    QSqlQuery age = m_db.run(
        QStringLiteral("SELECT b.block_timestamp FROM block_store b WHERE b.environment_id = ? "
                       "AND b.chain_id = ? AND b.block_number = (SELECT min(n) FROM (SELECT "
                       "min(o.block_number) AS n FROM outbox_store o WHERE o.environment_id = ? "
                       "AND o.chain_id = ? AND o.delivered_at IS NULL AND o.failed_at IS NULL "
                       "UNION ALL SELECT ?))"),
        {environmentId, chainId, environmentId, chainId,
         firstRendered ? QVariant(qint64(*firstRendered)) : QVariant()});
    if (age.next())
        t.oldestPendingBlockTime = age.value(0).toLongLong();
    return t;
}

QString SqliteContractReader::reorgDiffRecordedSql() const
{
    return reorgDiffRowsSql();
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
