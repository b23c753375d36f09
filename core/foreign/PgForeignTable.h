#pragma once

#include "ForeignTable.h"

#include <QHash>

namespace forkscope::store::pg {
class PgConnection;
class PgResult;
} // namespace forkscope::store::pg

namespace forkscope::foreign {

// A foreign PostgreSQL database through libpq, read in one READ ONLY, REPEATABLE READ
// transaction (one snapshot; the server refuses any write the query might attempt).
class PgForeignTable : public ForeignTable
{
public:
    explicit PgForeignTable(const QString& url);
    ~PgForeignTable() override;

    QString describe() const override;
    QStringList columns(const QString& query) override;
    std::optional<std::pair<ForeignCell, ForeignCell>> blockSpan(const QString& query) override;
    void rowsBetween(const QString& query, std::uint64_t from, std::uint64_t to, qsizetype maxRows,
                     const std::function<void(const ForeignCells&)>& row) override;
    void allRows(const QString& query, qsizetype maxRows,
                 const std::function<void(const ForeignCells&)>& row) override;

private:
    // Runs `sql` (the user's query inside it) as a prepared statement of its own; throws
    // BadQuery with the server's reason.
    store::pg::PgResult run(const QString& query, const QString& sql,
                            const QList<QByteArray>& params);
    ForeignCell cell(const store::pg::PgResult& r, int row, int column) const;

    std::unique_ptr<store::pg::PgConnection> m_db;
    QHash<QString, QByteArray> m_names; // SQL text -> its prepared statement's name
};

} // namespace forkscope::foreign
