#pragma once

#include "ForeignTable.h"

struct sqlite3;
struct sqlite3_stmt;

namespace forkscope::foreign {

// A foreign SQLite file, opened read-only (never created, never written, no schema of ours
// expected) through SQLite's own API, one read transaction held for the whole audit.
class SqliteForeignTable : public ForeignTable
{
public:
    explicit SqliteForeignTable(const QString& path);
    ~SqliteForeignTable() override;

    QString describe() const override { return m_path; }
    QStringList columns(const QString& query) override;
    std::optional<std::pair<ForeignCell, ForeignCell>> blockSpan(const QString& query) override;
    void rowsBetween(const QString& query, std::uint64_t from, std::uint64_t to, qsizetype maxRows,
                     const std::function<void(const ForeignCells&)>& row) override;
    void allRows(const QString& query, qsizetype maxRows,
                 const std::function<void(const ForeignCells&)>& row) override;

private:
    // Prepares `sql` (the user's query inside it); throws BadQuery with SQLite's reason.
    sqlite3_stmt* prepare(const QString& query, const QString& sql);
    ForeignCell cell(sqlite3_stmt* s, int column) const;
    // Steps `s` to its end, each row to `row`; BadQuery past `maxRows` (`tooMany` says more).
    void step(const QString& query, sqlite3_stmt* s, qsizetype maxRows, const QString& tooMany,
              const std::function<void(const ForeignCells&)>& row);

    QString m_path;
    sqlite3* m_db = nullptr;
};

} // namespace forkscope::foreign
