#include "EnvironmentDump.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContractReader.h"

#include <QCryptographicHash>
#include <QSqlQuery>
#include <QSqlRecord>

namespace forkscope::test {

namespace {
// Contract v4 stores hashes as BLOBs: as hex, so two different ones never print alike.
QString valueText(const QVariant& v)
{
    if (v.isNull())
        return QStringLiteral("NULL");
    if (v.typeId() == QMetaType::QByteArray)
        return QStringLiteral("x'") + QString::fromLatin1(v.toByteArray().toHex()) +
               QLatin1Char('\'');
    return v.toString();
}

// The columns of a query's rows to print: every one but `skip`. Read once per query: a
// QSqlRecord is built anew on each call, and per value it was most of a dump's time.
QList<int> columnsOf(const QSqlQuery& q, const QString& skip = QString())
{
    const QSqlRecord record = q.record();
    QList<int> columns;
    for (int i = 0; i < record.count(); ++i)
        if (skip.isEmpty() || record.fieldName(i) != skip)
            columns << i;
    return columns;
}

// The current row's values in `columns`, as valueText gives them, joined by '|'.
QString rowText(const QSqlQuery& q, const QList<int>& columns)
{
    QStringList values;
    values.reserve(columns.size());
    for (int i : columns)
        values << valueText(q.value(i));
    return values.join(QLatin1Char('|'));
}

// A dump's tables: each one's rows sorted, hashed in table order, counted in the summary,
// and listed in `lines` when it is given.
class Dump
{
public:
    explicit Dump(QStringList* lines) : m_lines(lines) {}
    void add(const QString& table, QStringList rows)
    {
        rows.sort();
        if (m_lines)
            for (const QString& r : std::as_const(rows))
                *m_lines << table + QLatin1Char(':') + r;
        m_hash.addData(table.toUtf8());
        m_hash.addData(rows.join(QLatin1Char('\n')).toUtf8());
        m_summary += QStringLiteral("%1:%2 ").arg(table).arg(rows.size());
    }
    QString result() const { return m_summary + QString::fromLatin1(m_hash.result().toHex()); }

private:
    QStringList* m_lines;
    QCryptographicHash m_hash{QCryptographicHash::Sha256};
    QString m_summary;
};

// What the health polls saw of each node's head: an observation of the nodes, which moves
// whenever a node's head does, not indexed data a dump compares.
bool isObservation(const QString& table)
{
    return table.startsWith(QLatin1String("node_sighting"));
}

// env empty: every row of every table. Otherwise every row carrying this environment_id
// (the `environments` row without archived_at, which a lab reset legitimately sets).
QString dump(const QString& dbPath, const QString& env, QStringList* lines = nullptr)
{
    store::Database::Options ro;
    ro.readOnly = true;
    auto db = store::Database::open(dbPath, ro);
    QSqlQuery tables = db->run(
        QStringLiteral("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY "
                       "name"));
    QStringList names;
    while (tables.next())
        if (!isObservation(tables.value(0).toString()))
            names << tables.value(0).toString();
    Dump out(lines);
    for (const QString& t : names) {
        QSqlQuery q;
        if (env.isEmpty()) {
            q = db->run(QStringLiteral("SELECT * FROM %1").arg(t));
        } else {
            QSqlQuery cols = db->run(QStringLiteral("SELECT count(*) FROM pragma_table_info('%1') "
                                                    "WHERE name = 'environment_id'")
                                         .arg(t));
            if (!cols.next() || cols.value(0).toInt() == 0)
                continue;
            q = db->run(QStringLiteral("SELECT * FROM %1 WHERE environment_id = ?").arg(t), {env});
        }
        QStringList rows;
        const QString skip = !env.isEmpty() && t == QLatin1String("environments")
                                 ? QStringLiteral("archived_at")
                                 : QString();
        const QList<int> columns = columnsOf(q, skip);
        while (q.next())
            rows << rowText(q, columns);
        out.add(t, rows);
    }
    return out.result();
}

// Every row of every table and view of a PostgreSQL database's public schema, as dump()
// gives a file's (values as the server's text, bytea as \x hex).
QString pgDump(const QString& url, QStringList* lines)
{
    auto db = store::pg::PgConnection::open(url);
    store::pg::PgContractReader reader(*db);
    Dump out(lines);
    for (const QString& table :
         queryRows(reader, QStringLiteral("SELECT table_name FROM information_schema.tables "
                                          "WHERE table_schema = 'public' ORDER BY table_name")))
        if (!isObservation(table))
            out.add(table, queryRows(reader, QStringLiteral("SELECT * FROM %1").arg(table)));
    return out.result();
}
} // namespace

QString databaseDump(const QString& db)
{
    return store::pg::isPostgresUrl(db) ? pgDump(db, nullptr) : dump(db, QString());
}

QStringList databaseRows(const QString& db)
{
    QStringList lines;
    if (store::pg::isPostgresUrl(db))
        pgDump(db, &lines);
    else
        dump(db, QString(), &lines);
    return lines;
}

QStringList queryRows(store::Database& db, const QString& sql)
{
    QSqlQuery q = db.run(sql);
    const QList<int> columns = columnsOf(q);
    QStringList rows;
    while (q.next())
        rows << rowText(q, columns);
    return rows;
}

QStringList queryRows(store::ContractReader& reader, const QString& sql, const QVariantList& args)
{
    QStringList rows;
    for (auto q = reader.query(sql, args); q->next();) {
        QStringList values;
        values.reserve(q->columns());
        for (int i = 0; i < q->columns(); ++i)
            values << valueText(q->value(i));
        rows << values.join(QLatin1Char('|'));
    }
    return rows;
}

QString environmentDump(const QString& dbPath, const QString& env)
{
    return dump(dbPath, env);
}

} // namespace forkscope::test
