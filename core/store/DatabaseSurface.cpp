// An open's check of the contract's read surface (ContractSurface.h) on SQLite: every view and
// trigger is compared with sqlite_master, which keeps each CREATE statement as it was run.
#include "ContractSurface.h"
#include "Database.h"

#include <QHash>
#include <QSqlQuery>

namespace forkscope::store {

namespace {

struct SchemaEntry
{
    QString type;
    QString sql;
};

// What differs between the surface and the file. Tables, views and indexes share one
// namespace in SQLite, triggers have their own; names compare without case, as SQLite's do.
QList<SurfaceFinding> sqliteFindings(Database& db)
{
    QHash<QString, SchemaEntry> relations;
    QHash<QString, SchemaEntry> triggers;
    QSqlQuery q = db.run(QStringLiteral("SELECT type, name, sql FROM sqlite_master"));
    while (q.next()) {
        const QString type = q.value(0).toString();
        (type == QLatin1String("trigger") ? triggers : relations)
            .insert(q.value(1).toString().toLower(), {type, q.value(2).toString()});
    }
    QList<SurfaceFinding> found;
    for (const SurfaceObject& o : contractSurface()) {
        if (o.sqlite.isEmpty())
            continue;
        const bool isView = o.kind == SurfaceObject::Kind::View;
        const auto& names = isView ? relations : triggers;
        const auto it = names.constFind(o.name.toLower());
        if (it == names.constEnd())
            found << SurfaceFinding{&o, SurfaceFinding::State::Missing, {}};
        else if (isView && it->type != QLatin1String("view"))
            found << SurfaceFinding{&o, SurfaceFinding::State::NameTaken, it->type};
        else if (it->sql != o.sqlite)
            found << SurfaceFinding{&o, SurfaceFinding::State::Altered, {}};
    }
    return found;
}

} // namespace

void Database::checkContractSurface()
{
    QList<SurfaceFinding> found = sqliteFindings(*this);
    if (found.isEmpty())
        return;
    if (m_options.readOnly || refusalKind(found) == StoreError::Kind::Query)
        throw StoreError(
            refusalKind(found),
            refusalLine(m_path, found,
                        QStringLiteral("forkscope index --db %1 --rpc URL").arg(m_path)));
    retryWhileLocked([&] {
        WriteTransaction tx(*this);
        // Another process may have restored them while this one waited for the lock.
        found = sqliteFindings(*this);
        if (found.isEmpty())
            return;
        if (refusalKind(found) == StoreError::Kind::Query)
            throw StoreError(StoreError::Kind::Query, refusalLine(m_path, found, {}));
        for (const SurfaceFinding& f : found)
            if (f.object->kind == SurfaceObject::Kind::View) {
                run(QStringLiteral("DROP VIEW IF EXISTS %1").arg(f.object->name));
                run(f.object->sqlite);
            }
        // A dropped view took its triggers with it: every trigger that now differs.
        for (const SurfaceFinding& f : sqliteFindings(*this))
            if (f.object->kind == SurfaceObject::Kind::Trigger) {
                run(QStringLiteral("DROP TRIGGER IF EXISTS %1").arg(f.object->name));
                run(f.object->sqlite);
            }
        tx.commit();
        m_restoredSurface = restoredLine(m_path, found);
    });
}

} // namespace forkscope::store
