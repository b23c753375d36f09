#include "PgForeignTable.h"
#include "ForeignError.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgError.h"

namespace forkscope::foreign {

PgForeignTable::PgForeignTable(const QString& url)
{
    try {
        store::pg::PgConnection::Options options;
        options.applicationName = QStringLiteral("forkscope audit");
        m_db = store::pg::PgConnection::open(url, options);
        m_db->exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    } catch (const store::StoreError& e) {
        throw ForeignError(ForeignError::Kind::BadTarget,
                           QStringLiteral("--target: %1").arg(e.message()));
    }
}

PgForeignTable::~PgForeignTable()
{
    if (m_db)
        m_db->rollback();
}

QString PgForeignTable::describe() const
{
    return m_db->displayUrl();
}

store::pg::PgResult PgForeignTable::run(const QString& query, const QString& sql,
                                        const QList<QByteArray>& params)
{
    auto name = m_names.constFind(sql);
    if (name == m_names.cend())
        name = m_names.insert(sql, QByteArray("forkscope_foreign_") +
                                       QByteArray::number(m_names.size()));
    try {
        return m_db->run(name->constData(), sql.toUtf8().constData(), params);
    } catch (const store::StoreError& e) {
        throw badQuery(query, e.message());
    }
}

ForeignCell PgForeignTable::cell(const store::pg::PgResult& r, int row, int column) const
{
    ForeignCell c;
    if (r.isNull(row, column))
        return c;
    const QByteArray text = r.text(row, column);
    if (r.isBytea(column) && text.startsWith("\\x")) {
        c.type = ForeignCell::Type::Blob;
        c.bytes = QByteArray::fromHex(text.mid(2));
        return c;
    }
    // Text format: numbers, numeric and text alike arrive as their text.
    c.type = ForeignCell::Type::Text;
    c.bytes = text;
    return c;
}

QStringList PgForeignTable::columns(const QString& query)
{
    const auto r =
        run(query, QStringLiteral("SELECT * FROM (%1) AS q LIMIT 0").arg(subquery(query)), {});
    QStringList out;
    for (int i = 0; i < r.columns(); ++i)
        out << QString::fromUtf8(r.columnName(i));
    return out;
}

std::optional<std::pair<ForeignCell, ForeignCell>> PgForeignTable::blockSpan(const QString& query)
{
    const auto r = run(query,
                       QStringLiteral("SELECT min(block_number), max(block_number) FROM (%1) AS q")
                           .arg(subquery(query)),
                       {});
    if (r.rows() != 1 || r.isNull(0, 0))
        return std::nullopt;
    return std::pair{cell(r, 0, 0), cell(r, 0, 1)};
}

void PgForeignTable::rowsBetween(const QString& query, std::uint64_t from, std::uint64_t to,
                                 qsizetype maxRows,
                                 const std::function<void(const ForeignCells&)>& row)
{
    // One more than allowed, so that too many is told from exactly enough.
    const auto r = run(query,
                       QStringLiteral("SELECT * FROM (%1) AS q WHERE block_number BETWEEN $1 AND "
                                      "$2 ORDER BY block_number LIMIT $3")
                           .arg(subquery(query)),
                       {QByteArray::number(qulonglong(from)), QByteArray::number(qulonglong(to)),
                        QByteArray::number(qint64(maxRows) + 1)});
    if (r.rows() > maxRows)
        throw badQuery(query, QStringLiteral("more than %1 rows in blocks %2..%3: audit a "
                                             "narrower range (--from-block, --to-block)")
                                  .arg(maxRows)
                                  .arg(from)
                                  .arg(to));
    for (int i = 0; i < r.rows(); ++i) {
        ForeignCells cells;
        cells.reserve(r.columns());
        for (int c = 0; c < r.columns(); ++c)
            cells.append(cell(r, i, c));
        row(cells);
    }
}

void PgForeignTable::allRows(const QString& query, qsizetype maxRows,
                             const std::function<void(const ForeignCells&)>& row)
{
    const auto r =
        run(query, QStringLiteral("SELECT * FROM (%1) AS q LIMIT $1").arg(subquery(query)),
            {QByteArray::number(qint64(maxRows) + 1)});
    if (r.rows() > maxRows)
        throw badQuery(query, QStringLiteral("more than %1 rows").arg(maxRows));
    for (int i = 0; i < r.rows(); ++i) {
        ForeignCells cells;
        cells.reserve(r.columns());
        for (int c = 0; c < r.columns(); ++c)
            cells.append(cell(r, i, c));
        row(cells);
    }
}

} // namespace forkscope::foreign
