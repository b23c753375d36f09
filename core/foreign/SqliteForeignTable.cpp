#include "SqliteForeignTable.h"
#include "ForeignError.h"

#include <QFileInfo>
#include <sqlite3.h>

namespace forkscope::foreign {

namespace {
// Finalizes on every path out of a read.
struct Finalize
{
    sqlite3_stmt* s;
    ~Finalize() { sqlite3_finalize(s); }
};
} // namespace

SqliteForeignTable::SqliteForeignTable(const QString& path) : m_path(path)
{
    const auto fail = [&](const QString& why) {
        return ForeignError(ForeignError::Kind::BadTarget,
                            QStringLiteral("--target %1: %2").arg(path, why));
    };
    if (!QFileInfo(path).isFile())
        throw fail(QStringLiteral("no such file (a SQLite file, or a postgresql:// URL)"));
    // Read-only: SQLite neither creates nor writes the file (a WAL file is read as is).
    const int rc = sqlite3_open_v2(path.toUtf8().constData(), &m_db, SQLITE_OPEN_READONLY, nullptr);
    if (rc != SQLITE_OK) {
        const QString why = QString::fromUtf8(m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc));
        sqlite3_close(m_db);
        m_db = nullptr;
        throw fail(why);
    }
    sqlite3_busy_timeout(m_db, 5000);
    // One snapshot for the whole audit: a writer's later commits are not half seen.
    char* error = nullptr;
    if (sqlite3_exec(m_db, "BEGIN", nullptr, nullptr, &error) != SQLITE_OK) {
        const QString why = QString::fromUtf8(error);
        sqlite3_free(error);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw fail(why);
    }
    // A file that is not a database says so at its first read, not at open.
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(m_db, "SELECT count(*) FROM sqlite_schema", -1, &s, nullptr) !=
            SQLITE_OK ||
        sqlite3_step(s) != SQLITE_ROW) {
        const QString why = QString::fromUtf8(sqlite3_errmsg(m_db));
        sqlite3_finalize(s);
        sqlite3_close(m_db);
        m_db = nullptr;
        throw fail(why);
    }
    sqlite3_finalize(s);
}

SqliteForeignTable::~SqliteForeignTable()
{
    if (m_db) {
        sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
        sqlite3_close(m_db);
    }
}

sqlite3_stmt* SqliteForeignTable::prepare(const QString& query, const QString& sql)
{
    sqlite3_stmt* s = nullptr;
    const QByteArray utf8 = sql.toUtf8();
    if (sqlite3_prepare_v2(m_db, utf8.constData(), int(utf8.size()), &s, nullptr) != SQLITE_OK) {
        const QString why = QString::fromUtf8(sqlite3_errmsg(m_db));
        sqlite3_finalize(s);
        throw badQuery(query, why);
    }
    if (!sqlite3_stmt_readonly(s)) {
        sqlite3_finalize(s);
        throw badQuery(query, QStringLiteral("not a read-only query"));
    }
    return s;
}

ForeignCell SqliteForeignTable::cell(sqlite3_stmt* s, int column) const
{
    ForeignCell c;
    switch (sqlite3_column_type(s, column)) {
    case SQLITE_INTEGER:
        c.type = ForeignCell::Type::Integer;
        c.integer = sqlite3_column_int64(s, column);
        break;
    case SQLITE_FLOAT:
        c.type = ForeignCell::Type::Real;
        c.bytes = QByteArray::number(sqlite3_column_double(s, column), 'g', 17);
        break;
    case SQLITE_TEXT:
        c.type = ForeignCell::Type::Text;
        c.bytes = QByteArray(reinterpret_cast<const char*>(sqlite3_column_text(s, column)),
                             sqlite3_column_bytes(s, column));
        break;
    case SQLITE_BLOB:
        c.type = ForeignCell::Type::Blob;
        c.bytes = QByteArray(static_cast<const char*>(sqlite3_column_blob(s, column)),
                             sqlite3_column_bytes(s, column));
        break;
    default:
        break;
    }
    return c;
}

QStringList SqliteForeignTable::columns(const QString& query)
{
    sqlite3_stmt* s =
        prepare(query, QStringLiteral("SELECT * FROM (%1) LIMIT 0").arg(subquery(query)));
    Finalize f{s};
    QStringList out;
    for (int i = 0; i < sqlite3_column_count(s); ++i)
        out << QString::fromUtf8(sqlite3_column_name(s, i));
    return out;
}

std::optional<std::pair<ForeignCell, ForeignCell>>
SqliteForeignTable::blockSpan(const QString& query)
{
    sqlite3_stmt* s =
        prepare(query, QStringLiteral("SELECT min(block_number), max(block_number) FROM (%1)")
                           .arg(subquery(query)));
    Finalize f{s};
    const int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW)
        throw badQuery(query, QString::fromUtf8(sqlite3_errmsg(m_db)));
    if (sqlite3_column_type(s, 0) == SQLITE_NULL)
        return std::nullopt;
    return std::pair{cell(s, 0), cell(s, 1)};
}

void SqliteForeignTable::rowsBetween(const QString& query, std::uint64_t from, std::uint64_t to,
                                     qsizetype maxRows,
                                     const std::function<void(const ForeignCells&)>& row)
{
    sqlite3_stmt* s = prepare(query, QStringLiteral("SELECT * FROM (%1) WHERE block_number "
                                                    "BETWEEN ?1 AND ?2 ORDER BY block_number")
                                         .arg(subquery(query)));
    Finalize f{s};
    sqlite3_bind_int64(s, 1, sqlite3_int64(from));
    sqlite3_bind_int64(s, 2, sqlite3_int64(to));
    step(query, s, maxRows,
         QStringLiteral(" in blocks %1..%2: audit a narrower range "
                        "(--from-block, --to-block)")
             .arg(from)
             .arg(to),
         row);
}

void SqliteForeignTable::allRows(const QString& query, qsizetype maxRows,
                                 const std::function<void(const ForeignCells&)>& row)
{
    sqlite3_stmt* s = prepare(query, subquery(query));
    Finalize f{s};
    step(query, s, maxRows, QString(), row);
}

void SqliteForeignTable::step(const QString& query, sqlite3_stmt* s, qsizetype maxRows,
                              const QString& tooMany,
                              const std::function<void(const ForeignCells&)>& row)
{
    const int n = sqlite3_column_count(s);
    qsizetype rows = 0;
    for (;;) {
        const int rc = sqlite3_step(s);
        if (rc == SQLITE_DONE)
            return;
        if (rc != SQLITE_ROW)
            throw badQuery(query, QString::fromUtf8(sqlite3_errmsg(m_db)));
        if (++rows > maxRows)
            throw badQuery(query, QStringLiteral("more than %1 rows%2").arg(maxRows).arg(tooMany));
        ForeignCells cells;
        cells.reserve(n);
        for (int i = 0; i < n; ++i)
            cells.append(cell(s, i));
        row(cells);
    }
}

} // namespace forkscope::foreign
