#pragma once

#include <QByteArray>
#include <QByteArrayView>

namespace forkscope::store::pg {

// Rows for COPY ... FROM STDIN in PostgreSQL's text format: fields separated by tabs, rows
// by newlines, NULL as \N, backslash escapes in text, bytea as its \x hex form (whose
// backslash COPY itself needs doubled).
class PgCopyRows
{
public:
    PgCopyRows& integer(qint64 v);
    PgCopyRows& text(QByteArrayView utf8);
    PgCopyRows& bytea(QByteArrayView bytes);
    PgCopyRows& null();
    void endRow();

    const QByteArray& data() const { return m_data; }
    qsizetype rows() const { return m_rows; }

private:
    void separate();

    QByteArray m_data;
    qsizetype m_rows = 0;
    bool m_rowOpen = false;
};

} // namespace forkscope::store::pg
