#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>

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
    // Runs the statement to completion and resets it; returns the rows changed.
    int execute();
    // Runs a query and resets it; true when it returned a row.
    bool hasRow();

private:
    Database& m_db;
    sqlite3* m_handle = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
    QString m_sql;
};

} // namespace forkscope::store
