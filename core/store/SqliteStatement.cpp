#include "SqliteStatement.h"
#include "Database.h"

#include <QSqlError>

#include <sqlite3.h>

#include <limits>

namespace forkscope::store {

namespace {
[[noreturn]] void fail(Database& db, sqlite3* handle, int code, const QString& sql)
{
    QSqlError e(QString(), QString::fromUtf8(sqlite3_errmsg(handle)), QSqlError::StatementError,
                QString::number(code));
    throw db.errorFrom(e, sql.left(60));
}
} // namespace

SqliteStatement::SqliteStatement(Database& db, const char* sql)
    : m_db(db), m_handle(db.sqliteHandle()), m_sql(QString::fromUtf8(sql))
{
    prepare(sql, -1, SQLITE_PREPARE_PERSISTENT);
}

SqliteStatement::SqliteStatement(Database& db, const QString& sql)
    : m_db(db), m_handle(db.sqliteHandle()), m_sql(sql)
{
    const QByteArray utf8 = sql.toUtf8();
    prepare(utf8.constData(), int(utf8.size()), 0);
}

void SqliteStatement::prepare(const char* utf8, int bytes, unsigned flags)
{
    if (!m_handle)
        throw StoreError(StoreError::Kind::Query,
                         QStringLiteral("no SQLite handle for %1").arg(m_sql));
    const int rc = sqlite3_prepare_v3(m_handle, utf8, bytes, flags, &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        fail(m_db, m_handle, rc, m_sql);
}

SqliteStatement::~SqliteStatement()
{
    sqlite3_finalize(m_stmt);
}

void SqliteStatement::bind(int index, const QByteArray& utf8)
{
    sqlite3_bind_text(m_stmt, index, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::bind(int index, std::int64_t value)
{
    sqlite3_bind_int64(m_stmt, index, value);
}

void SqliteStatement::bindBlob(int index, const void* bytes, int size)
{
    static const char empty = 0;
    sqlite3_bind_blob(m_stmt, index, size > 0 ? bytes : &empty, size, SQLITE_TRANSIENT);
}

void SqliteStatement::bindNull(int index)
{
    sqlite3_bind_null(m_stmt, index);
}

void SqliteStatement::bind(int index, const QVariant& value)
{
    if (value.isNull()) {
        bindNull(index);
        return;
    }
    switch (value.typeId()) {
    case QMetaType::Bool:
    case QMetaType::Int:
    case QMetaType::UInt:
    case QMetaType::Long:
    case QMetaType::LongLong:
    case QMetaType::Short:
    case QMetaType::UShort:
        bind(index, std::int64_t(value.toLongLong()));
        return;
    case QMetaType::ULong:
    case QMetaType::ULongLong:
        if (value.toULongLong() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            throw StoreError(StoreError::Kind::Query,
                             QStringLiteral("parameter %1 (%2) does not fit SQLite's 64-bit "
                                            "integers in %3")
                                 .arg(index)
                                 .arg(value.toULongLong())
                                 .arg(m_sql.left(60)));
        bind(index, std::int64_t(value.toLongLong()));
        return;
    case QMetaType::Double:
    case QMetaType::Float:
        sqlite3_bind_double(m_stmt, index, value.toDouble());
        return;
    case QMetaType::QByteArray: {
        const QByteArray b = value.toByteArray();
        bindBlob(index, b.constData(), int(b.size()));
        return;
    }
    default:
        bind(index, value.toString().toUtf8());
    }
}

int SqliteStatement::execute()
{
    const int rc = sqlite3_step(m_stmt);
    sqlite3_reset(m_stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        fail(m_db, m_handle, rc, m_sql);
    return sqlite3_changes(m_handle);
}

bool SqliteStatement::hasRow()
{
    const bool row = next();
    if (row)
        reset(); // next() resets at the end only
    return row;
}

std::int64_t SqliteStatement::lastInsertRowId() const
{
    return sqlite3_last_insert_rowid(m_handle);
}

bool SqliteStatement::next()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    sqlite3_reset(m_stmt);
    if (rc != SQLITE_DONE)
        fail(m_db, m_handle, rc, m_sql);
    return false;
}

QByteArray SqliteStatement::text(int column) const
{
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    return QByteArray(p, sqlite3_column_bytes(m_stmt, column));
}

std::span<const std::uint8_t> SqliteStatement::blob(int column) const
{
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(m_stmt, column));
    return {p, std::size_t(sqlite3_column_bytes(m_stmt, column))};
}

QVariant SqliteStatement::value(int column) const
{
    switch (sqlite3_column_type(m_stmt, column)) {
    case SQLITE_INTEGER:
        return QVariant(qlonglong(sqlite3_column_int64(m_stmt, column)));
    case SQLITE_FLOAT:
        return QVariant(sqlite3_column_double(m_stmt, column));
    case SQLITE_BLOB: {
        const auto b = blob(column);
        return QVariant(QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size())));
    }
    case SQLITE_NULL:
        return QVariant();
    default: {
        const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
        return QVariant(QString::fromUtf8(p, sqlite3_column_bytes(m_stmt, column)));
    }
    }
}

int SqliteStatement::columnCount() const
{
    return sqlite3_column_count(m_stmt);
}

std::int64_t SqliteStatement::int64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

void SqliteStatement::reset()
{
    sqlite3_reset(m_stmt);
}

} // namespace forkscope::store
