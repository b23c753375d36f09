#pragma once

#include <QString>
#include <QStringList>
#include <QVariantList>

namespace forkscope::store {
class ContractReader;
class Database;
} // namespace forkscope::store

namespace forkscope::test {

// Every row carrying this environment_id, in every table (the `environments` row without
// archived_at, which a lab reset legitimately sets), sorted and hashed, with a row count
// per table: "kept intact, never mixed" means equal dumps. Opens the file read-only.
QString environmentDump(const QString& dbPath, const QString& env);
// The same over every row of every table: "nothing was changed" means equal dumps. `db` is
// a SQLite file or a postgresql:// URL (every table and view of its public schema).
QString databaseDump(const QString& db);
// Every row of every table as "table:value|value|...", for saying which rows differ when
// two dumps do.
QStringList databaseRows(const QString& db);
// Each row `sql` returns on `db`, in its order, in the same form ("value|value|...", NULL and
// BLOBs as the dumps write them).
QStringList queryRows(store::Database& db, const QString& sql);
// The same through a store's contract surface (`?` placeholders, values as text).
QStringList queryRows(store::ContractReader& reader, const QString& sql,
                      const QVariantList& args = {});

} // namespace forkscope::test
