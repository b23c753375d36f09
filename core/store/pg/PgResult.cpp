#include "PgResult.h"
#include "PgError.h"

#include <libpq-fe.h>

namespace forkscope::store::pg {

PgResult::PgResult(pg_result* result, QString statement)
    : m_result(result), m_statement(std::move(statement))
{
}

PgResult::~PgResult()
{
    if (m_result)
        PQclear(m_result);
}

PgResult::PgResult(PgResult&& other) noexcept
    : m_result(std::exchange(other.m_result, nullptr)), m_statement(std::move(other.m_statement))
{
}

int PgResult::rows() const
{
    return m_result ? PQntuples(m_result) : 0;
}

int PgResult::columns() const
{
    return m_result ? PQnfields(m_result) : 0;
}

qint64 PgResult::affected() const
{
    if (!m_result)
        return 0;
    const char* n = PQcmdTuples(m_result);
    return n && *n ? QByteArray(n).toLongLong() : 0;
}

void PgResult::check(int row, int column) const
{
    if (!m_result || row < 0 || row >= PQntuples(m_result) || column < 0 ||
        column >= PQnfields(m_result))
        throw PgError(StoreError::Kind::Query,
                      QStringLiteral("%1: the server answered %2 rows of %3 columns; row %4, "
                                     "column %5 was expected")
                          .arg(m_statement)
                          .arg(rows())
                          .arg(m_result ? PQnfields(m_result) : 0)
                          .arg(row)
                          .arg(column));
}

QByteArray PgResult::columnName(int column) const
{
    return column >= 0 && column < columns() ? QByteArray(PQfname(m_result, column)) : QByteArray();
}

bool PgResult::isBytea(int column) const
{
    constexpr Oid kByteaOid = 17; // pg_type.oid of bytea, fixed in every PostgreSQL
    return column >= 0 && column < columns() && PQftype(m_result, column) == kByteaOid;
}

bool PgResult::isNull(int row, int column) const
{
    check(row, column);
    return PQgetisnull(m_result, row, column) == 1;
}

QByteArray PgResult::text(int row, int column) const
{
    check(row, column);
    return QByteArray(PQgetvalue(m_result, row, column), PQgetlength(m_result, row, column));
}

qint64 PgResult::int64(int row, int column) const
{
    const QByteArray t = text(row, column);
    bool ok = false;
    const qint64 v = t.toLongLong(&ok);
    if (!ok || isNull(row, column))
        throw PgError(
            StoreError::Kind::Query,
            QStringLiteral("%1: column %2 (%3) is \"%4\", not an integer")
                .arg(m_statement)
                .arg(column)
                .arg(QString::fromUtf8(PQfname(m_result, column)), QString::fromUtf8(t.left(40))));
    return v;
}

QByteArray PgResult::bytes(int row, int column, int size) const
{
    const QByteArray t = text(row, column);
    const QByteArray raw = t.startsWith("\\x") ? QByteArray::fromHex(t.mid(2)) : QByteArray();
    if (isNull(row, column) || raw.size() != size || t.size() != 2 + 2 * size)
        throw PgError(StoreError::Kind::Query,
                      QStringLiteral("%1: column %2 (%3) holds %4 bytes; %5 were expected")
                          .arg(m_statement)
                          .arg(column)
                          .arg(QString::fromUtf8(PQfname(m_result, column)))
                          .arg(isNull(row, column) ? QStringLiteral("NULL, not")
                                                   : QString::number((t.size() - 2) / 2))
                          .arg(size));
    return raw;
}

} // namespace forkscope::store::pg
