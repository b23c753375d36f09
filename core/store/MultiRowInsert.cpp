#include "MultiRowInsert.h"

namespace forkscope::store {

namespace {
QByteArray insertSql(const QByteArray& insertInto, int columns, const QByteArray& onConflict,
                     int rows)
{
    QByteArray row = "(?";
    row += QByteArray(", ?").repeated(columns - 1);
    row += ')';
    QByteArray sql = insertInto + " VALUES " + row;
    for (int r = 1; r < rows; ++r)
        sql += ", " + row;
    if (!onConflict.isEmpty())
        sql += ' ' + onConflict;
    return sql;
}
} // namespace

MultiRowInsert::MultiRowInsert(Database& db, const QByteArray& insertInto, int columns,
                               const QByteArray& onConflict, int rowsPerStatement)
    : m_one(std::make_unique<SqliteStatement>(
          db, insertSql(insertInto, columns, onConflict, 1).constData())),
      m_many(std::make_unique<SqliteStatement>(
          db, insertSql(insertInto, columns, onConflict, rowsPerStatement).constData())),
      m_columns(columns), m_rowsPerStatement(rowsPerStatement)
{
    Q_ASSERT(columns > 0 && rowsPerStatement > 1);
}

MultiRowInsert::~MultiRowInsert() = default;

void MultiRowInsert::start(qsizetype rows, bool grouped)
{
    m_next = 0;
    m_rows = rows;
    m_groupedRows = grouped ? rows - rows % m_rowsPerStatement : 0;
}

void MultiRowInsert::finish() const
{
    if (m_next != m_rows)
        throw StoreError(StoreError::Kind::Query,
                         QStringLiteral("%1 of %2 announced rows were added to %3: not all were "
                                        "written; the transaction must not commit")
                             .arg(m_next)
                             .arg(m_rows)
                             .arg(m_one->sql()));
}

} // namespace forkscope::store
