#include "PgBinaryRows.h"

#include <QtEndian>

#include <array>

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

PgBinaryRows& PgBinaryRows::numeric(const chain::U256& value)
{
    // Base-10000 digits, least significant first: 2^256 < 10^80 makes at most 20. A value
    // that fits 128 bits (nearly every token amount) is split natively, not by big-number
    // division (its decimal text was a tenth of the commit rows' cost).
    std::array<qint16, 20> low{};
    int count = 0;
    const auto& backend = value.backend();
    if (backend.size() <= 2) {
        unsigned __int128 v = backend.limbs()[0];
        if (backend.size() == 2)
            v |= static_cast<unsigned __int128>(backend.limbs()[1]) << 64;
        for (; v != 0; v /= 10000)
            low[std::size_t(count++)] = qint16(v % 10000);
    } else {
        for (chain::U256 v = value; v != 0; v /= 10000)
            low[std::size_t(count++)] = qint16((v % 10000).convert_to<unsigned>());
    }
    // numeric_send's form: digit count, weight (of the first digit, in powers of 10000),
    // sign, display scale, then the digits, most significant first, with no trailing zero
    // digits.
    int zeros = 0;
    while (zeros < count && low[std::size_t(zeros)] == 0)
        ++zeros;
    const int digits = count - zeros;
    field(qint32(8 + 2 * digits));
    int16(qint16(digits));
    int16(digits ? qint16(count - 1) : qint16(0));
    int16(0); // positive
    int16(0); // scale 0
    for (int i = count - 1; i >= zeros; --i)
        int16(low[std::size_t(i)]);
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
