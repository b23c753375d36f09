#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>

struct pg_result;

namespace forkscope::store::pg {

// One statement's rows, owned (PQclear on destruction). Values arrive in text format;
// the accessors check the column and row and throw PgError naming the field on anything
// unexpected, never a silent default: the server's reply is checked like a node's.
class PgResult
{
public:
    PgResult(pg_result* result, QString statement);
    ~PgResult();
    PgResult(PgResult&& other) noexcept;
    PgResult& operator=(PgResult&&) = delete;
    PgResult(const PgResult&) = delete;
    PgResult& operator=(const PgResult&) = delete;

    int rows() const;
    int columns() const;
    // Rows an INSERT/UPDATE/DELETE touched.
    qint64 affected() const;

    // A column's name as the query spelled it, and whether it is bytea (its text is "\x...").
    QByteArray columnName(int column) const;
    bool isBytea(int column) const;

    bool isNull(int row, int column) const;
    QByteArray text(int row, int column) const;
    qint64 int64(int row, int column) const;
    // A bytea column (text format "\x..."), exactly `size` bytes.
    QByteArray bytes(int row, int column, int size) const;

private:
    void check(int row, int column) const;

    pg_result* m_result;
    QString m_statement;
};

} // namespace forkscope::store::pg
