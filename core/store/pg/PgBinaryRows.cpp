#include "PgBinaryRows.h"

#include <QtEndian>

#include <vector>

namespace forkscope::store::pg {

PgBinaryRows::PgBinaryRows(int fieldsPerRow) : m_fields(fieldsPerRow)
{
    static const char kSignature[] = "PGCOPY\n\377\r\n";
    m_data.append(kSignature, 11); // its final NUL included
    int32(0);                      // flags: no OIDs
    int32(0);                      // no header extension
}

void PgBinaryRows::int16(qint16 v)
{
    const qint16 be = qToBigEndian(v);
    m_data.append(reinterpret_cast<const char*>(&be), 2);
}

void PgBinaryRows::int32(qint32 v)
{
    const qint32 be = qToBigEndian(v);
    m_data.append(reinterpret_cast<const char*>(&be), 4);
}

void PgBinaryRows::field(qint32 length)
{
    if (!m_rowOpen) {
        int16(qint16(m_fields));
        m_rowOpen = true;
    }
    int32(length);
}

PgBinaryRows& PgBinaryRows::int8(qint64 v)
{
    field(8);
    const qint64 be = qToBigEndian(v);
    m_data.append(reinterpret_cast<const char*>(&be), 8);
    return *this;
}

PgBinaryRows& PgBinaryRows::text(QByteArrayView utf8)
{
    field(qint32(utf8.size()));
    m_data.append(utf8.data(), utf8.size());
    return *this;
}

PgBinaryRows& PgBinaryRows::bytea(QByteArrayView bytes)
{
    return text(bytes);
}

PgBinaryRows& PgBinaryRows::numeric(QByteArrayView decimal)
{
    // numeric_send's form: digit count, weight (of the first digit, in powers of 10000),
    // sign, display scale, then the base-10000 digits, most significant first, with no
    // trailing zero digits.
    qsizetype start = 0;
    while (start < decimal.size() && decimal[start] == '0')
        ++start;
    const QByteArrayView digits = decimal.sliced(start);
    std::vector<qint16> groups;
    const qsizetype lead = digits.size() % 4 ? digits.size() % 4 : 4;
    for (qsizetype at = 0, len = lead; at < digits.size(); at += len, len = 4) {
        qint16 g = 0;
        for (qsizetype i = at; i < at + len; ++i)
            g = qint16(g * 10 + (digits[i] - '0'));
        groups.push_back(g);
    }
    const qint16 weight = qint16(groups.size()) - 1;
    while (!groups.empty() && groups.back() == 0)
        groups.pop_back();
    field(qint32(8 + 2 * groups.size()));
    int16(qint16(groups.size()));
    int16(groups.empty() ? 0 : weight);
    int16(0); // positive
    int16(0); // scale 0
    for (const qint16 g : groups)
        int16(g);
    return *this;
}

PgBinaryRows& PgBinaryRows::null()
{
    field(-1);
    return *this;
}

void PgBinaryRows::endRow()
{
    m_rowOpen = false;
    ++m_rows;
}

void PgBinaryRows::finish()
{
    int16(-1);
}

} // namespace forkscope::store::pg
