#include "PgCopyRows.h"

namespace forkscope::store::pg {

void PgCopyRows::separate()
{
    if (m_rowOpen)
        m_data += '\t';
    m_rowOpen = true;
}

PgCopyRows& PgCopyRows::integer(qint64 v)
{
    separate();
    m_data += QByteArray::number(v);
    return *this;
}

PgCopyRows& PgCopyRows::text(QByteArrayView utf8)
{
    separate();
    for (const char c : utf8) {
        switch (c) {
        case '\\':
            m_data += "\\\\";
            break;
        case '\t':
            m_data += "\\t";
            break;
        case '\n':
            m_data += "\\n";
            break;
        case '\r':
            m_data += "\\r";
            break;
        default:
            m_data += c;
        }
    }
    return *this;
}

PgCopyRows& PgCopyRows::bytea(QByteArrayView bytes)
{
    separate();
    m_data += "\\\\x";
    m_data += QByteArray::fromRawData(bytes.data(), bytes.size()).toHex();
    return *this;
}

PgCopyRows& PgCopyRows::null()
{
    separate();
    m_data += "\\N";
    return *this;
}

void PgCopyRows::endRow()
{
    m_data += '\n';
    m_rowOpen = false;
    ++m_rows;
}

} // namespace forkscope::store::pg
