// The contract's read surface (store/ContractSurface.h) on PostgreSQL: each view is there and
// has the contract's definition. The server keeps a view as a parse tree, not as its text, so
// the expected SELECT is made a temporary view and both are compared as the server prints
// them (pg_get_viewdef); the temporary view goes with a savepoint rolled back at once.
#include "PgConnection.h"
#include "PgContract.h"
#include "PgError.h"

#include <optional>

namespace forkscope::store::pg {

namespace {

QString relationKind(const QByteArray& relkind)
{
    if (relkind == "r" || relkind == "p")
        return QStringLiteral("table");
    if (relkind == "m")
        return QStringLiteral("materialized view");
    if (relkind == "i" || relkind == "I")
        return QStringLiteral("index");
    if (relkind == "S")
        return QStringLiteral("sequence");
    if (relkind == "f")
        return QStringLiteral("foreign table");
    return QStringLiteral("relation of kind '%1'").arg(QString::fromLatin1(relkind));
}

// Whether the view `name` reads as `select` would. nullopt when this session may not create a
// temporary view (a read-only transaction, a hot standby, no TEMP privilege): then only the
// view's presence is known.
std::optional<bool> sameDefinition(PgConnection& db, const SurfaceObject& o)
{
    db.exec("SAVEPOINT forkscope_surface");
    try {
        db.exec(
            QByteArray("CREATE TEMP VIEW forkscope_expected_view AS " + o.pgSelect).constData());
        const PgResult same =
            db.run("pg_surface_same",
                   "SELECT pg_get_viewdef(to_regclass($1)) = "
                   "pg_get_viewdef(to_regclass('pg_temp.forkscope_expected_view'))",
                   {o.name.toUtf8()});
        db.exec("ROLLBACK TO SAVEPOINT forkscope_surface");
        return same.text(0, 0) == "t";
    } catch (const PgError& e) {
        db.exec("ROLLBACK TO SAVEPOINT forkscope_surface");
        if (e.sqlState() == "25006" || e.sqlState() == "42501")
            return std::nullopt;
        throw;
    }
}

} // namespace

QList<SurfaceFinding> pgSurfaceFindings(PgConnection& db)
{
    const bool ownTransaction = !db.inTransaction();
    if (ownTransaction)
        db.begin();
    QList<SurfaceFinding> found;
    try {
        for (const SurfaceObject& o : contractSurface()) {
            if (o.pgSelect.isEmpty())
                continue;
            const PgResult kind = db.run("pg_surface_kind",
                                         "SELECT c.relkind FROM pg_class c WHERE c.oid = "
                                         "to_regclass($1)",
                                         {o.name.toUtf8()});
            if (kind.rows() == 0)
                found << SurfaceFinding{&o, SurfaceFinding::State::Missing, {}};
            else if (kind.text(0, 0) != "v")
                found << SurfaceFinding{&o, SurfaceFinding::State::NameTaken,
                                        relationKind(kind.text(0, 0))};
            else if (sameDefinition(db, o) == false)
                found << SurfaceFinding{&o, SurfaceFinding::State::Altered, {}};
        }
    } catch (...) {
        if (ownTransaction)
            db.rollback();
        throw;
    }
    if (ownTransaction)
        db.rollback(); // it wrote nothing that outlives it
    return found;
}

QString restorePgSurface(PgConnection& db)
{
    const QList<SurfaceFinding> found = pgSurfaceFindings(db);
    if (found.isEmpty())
        return {};
    if (refusalKind(found) == StoreError::Kind::Query)
        throw PgError(StoreError::Kind::Query, refusalLine(db.displayUrl(), found, {}));
    for (const SurfaceFinding& f : found) {
        const QByteArray name = f.object->name.toUtf8();
        db.exec(QByteArray("DROP VIEW IF EXISTS " + name).constData());
        db.exec(QByteArray("CREATE VIEW " + name + " AS " + f.object->pgSelect).constData());
    }
    return restoredLine(db.displayUrl(), found);
}

} // namespace forkscope::store::pg
