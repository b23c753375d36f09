#pragma once

#include "SqliteStatement.h"

#include <QByteArray>

#include <memory>

namespace forkscope::store {

class Database;

// One row's parameters inside a statement that may hold many rows: column n (1-based) of
// row r is parameter r * columns + n.
class RowBinder
{
public:
    RowBinder(SqliteStatement& statement, int offset) : m_st(statement), m_offset(offset) {}
    void bind(int column, const QByteArray& utf8) { m_st.bind(m_offset + column, utf8); }
    void bind(int column, std::int64_t value) { m_st.bind(m_offset + column, value); }
    void bindBlob(int column, const void* bytes, int size)
    {
        m_st.bindBlob(m_offset + column, bytes, size);
    }
    template <typename Fixed> void bindBytes(int column, const Fixed& fixed)
    {
        m_st.bindBytes(m_offset + column, fixed);
    }
    void bindNull(int column) { m_st.bindNull(m_offset + column); }

private:
    SqliteStatement& m_st;
    int m_offset;
};

// An INSERT that writes up to rowsPerStatement rows per statement: `INSERT ... VALUES
// (...), (...), ...`. Row by row, each statement's run opens a cursor on the table and on
// each of its indexes, halts and resets; for log and outbox rows that was most of their
// cost, and the commit took a third fewer instructions in groups of 64 (bench/README.md's
// history). Rows are inserted in the order they are bound, so an INTEGER
// PRIMARY KEY keeps their order.
//
// start(rows, grouped) announces how many rows follow; finish() checks that they came.
// Grouped, full statements take the rows and the rest (fewer than rowsPerStatement) go one
// statement each. Not grouped, every row is its own statement, so add() returns exactly
// that row's change count.
class MultiRowInsert
{
public:
    // insertInto: "INSERT INTO t (a, b, c)"; onConflict: what follows the VALUES, or empty.
    MultiRowInsert(Database& db, const QByteArray& insertInto, int columns,
                   const QByteArray& onConflict, int rowsPerStatement);
    ~MultiRowInsert();

    void start(qsizetype rows, bool grouped);
    // Throws a StoreError unless exactly the announced rows were added: a group bound but
    // never run would be rows silently not written.
    void finish() const;
    // Binds the next row through bindRow(RowBinder&), and runs a statement when that row
    // completes one. Returns the rows the statement changed (0 when none ran yet).
    template <typename BindRow> int add(BindRow&& bindRow)
    {
        if (m_next < m_groupedRows) {
            const int inStatement = int(m_next++ % m_rowsPerStatement);
            RowBinder row(*m_many, inStatement * m_columns);
            bindRow(row);
            return inStatement == m_rowsPerStatement - 1 ? m_many->execute() : 0;
        }
        ++m_next;
        RowBinder row(*m_one, 0);
        bindRow(row);
        return m_one->execute();
    }

private:
    std::unique_ptr<SqliteStatement> m_one;
    std::unique_ptr<SqliteStatement> m_many;
    int m_columns;
    int m_rowsPerStatement;
    qsizetype m_next = 0;
    qsizetype m_rows = 0;
    qsizetype m_groupedRows = 0;
};

} // namespace forkscope::store
