#pragma once

#include "chain/U256.h"

#include <QByteArray>
#include <QByteArrayView>

namespace forkscope::store::pg {

// Rows for COPY ... FROM STDIN (FORMAT binary): each field as its length and its bytes in the
// server's binary form. Hashes and addresses go as their 32 or 20 bytes, not as hex text that
// the server parses back (text COPY of the logs was half of a commit's server time). Every
// row has the same number of fields, in the table's column types: int8() only for bigint,
// numeric() only for numeric.
class PgBinaryRows
{
public:
    explicit PgBinaryRows(int fieldsPerRow);

    PgBinaryRows& int8(qint64 v);
    PgBinaryRows& text(QByteArrayView utf8);
    PgBinaryRows& bytea(QByteArrayView bytes);
    // As numeric (scale 0).
    PgBinaryRows& numeric(const chain::U256& value);
    PgBinaryRows& null();
    void endRow();
    // Ends the data: call once, after the last row, before data().
    void finish();

    const QByteArray& data() const { return m_data; }
    qsizetype rows() const { return m_rows; }

private:
    void field(qint32 length);
    void int16(qint16 v);
    void int32(qint32 v);

    QByteArray m_data;
    int m_fields;
    bool m_rowOpen = false;
    qsizetype m_rows = 0;
};

} // namespace forkscope::store::pg
