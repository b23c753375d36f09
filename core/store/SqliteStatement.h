#pragma once

#include "StoreError.h"

#include <QByteArray>
#include <QString>
#include <QVariant>

#include <cstdint>
#include <span>

struct sqlite3;
struct sqlite3_stmt;

namespace forkscope::store {

class Database;

// A prepared statement on a Database's own connection (so it runs inside the same
// transaction as everything else), binding UTF-8 bytes and integers directly. Used only
// on the indexer's hot insert path: Qt's QSQLITE boxes every bound value in a QVariant
// and binds text as UTF-16, which SQLite converts back; for three inserts per event that
// was a third of the commit time (see bench/README.md).
class SqliteStatement
{
public:
    SqliteStatement(Database& db, const char* sql);
    // Any SQL text, prepared for one run (a query the caller composed).
    SqliteStatement(Database& db, const QString& sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    void bind(int index, const QByteArray& utf8); // 1-based, like SQLite
    void bind(int index, std::int64_t value);
    // A BLOB; zero bytes bind a zero-length BLOB, never NULL.
    void bindBlob(int index, const void* bytes, int size);
    template <typename Fixed> void bindBytes(int index, const Fixed& fixed)
    {
        bindBlob(index, fixed.bytes().data(), int(fixed.bytes().size()));
    }
    void bindNull(int index);
    // A value as QSqlQuery::bindValue would bind it: null, integer, real, BLOB or text.
    void bind(int index, const QVariant& value);
    // Runs the statement to completion and resets it; returns the rows changed.
    int execute();
    // Runs a query and resets it; true when it returned a row.
    bool hasRow();
    std::int64_t lastInsertRowId() const;
    // Row by row: next() steps (false at the end, when the statement is reset); the column
    // readers are valid until the next step. reset() abandons the rest.
    bool next();
    QByteArray text(int column) const; // 0-based, like SQLite
    std::int64_t int64(int column) const;
    std::span<const std::uint8_t> blob(int column) const;
    // The column as QSqlQuery::value gives it for QSQLITE: qlonglong, double, QString,
    // QByteArray, or a null QVariant.
    QVariant value(int column) const;
    int columnCount() const;
    // A hash or address column (contract v4 BLOBs); a wrong size is a damaged row.
    template <typename Fixed> Fixed fixedBytes(int column, const char* field) const
    {
        const auto b = blob(column);
        if (b.size() != Fixed::size)
            throw StoreError(StoreError::Kind::Query,
                             QStringLiteral("%1 holds %2 bytes, not %3: the row was damaged")
                                 .arg(QLatin1String(field))
                                 .arg(b.size())
                                 .arg(Fixed::size));
        return Fixed::fromRaw(b.template first<Fixed::size>());
    }
    void reset();
    const QString& sql() const { return m_sql; }

private:
    // Both constructors: SQLITE_PREPARE_PERSISTENT for the statements kept for a run's
    // every batch, none for a query prepared once.
    void prepare(const char* utf8, int bytes, unsigned flags);

    Database& m_db;
    sqlite3* m_handle = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
    QString m_sql;
};

} // namespace forkscope::store
