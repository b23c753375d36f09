#include "ContractSurface.h"
#include "BinaryContract.h"
#include "ChildrenContract.h"
#include "ForkTreeContract.h"
#include "PendingOutboxContract.h"
#include "ReorgDiffContract.h"
#include "SourcesContract.h"
#include "pg/PgContract.h"

#include <QStringList>
#include <algorithm>

namespace forkscope::store {

const QList<SurfaceObject>& contractSurface()
{
    static const QList<SurfaceObject> all = [] {
        QList<SurfaceObject> s = binaryContractSurface() + pendingOutboxSurface() +
                                 reorgDiffSurface() + childrenSurface() + sourcesSurface() +
                                 forkTreeSurface();
        std::stable_partition(s.begin(), s.end(), [](const SurfaceObject& o) {
            return o.kind == SurfaceObject::Kind::View;
        });
        // Every view of the contract is on both stores, under the same name.
        for (SurfaceObject& o : s)
            if (o.kind == SurfaceObject::Kind::View)
                o.pgSelect = pg::pgViewSelect(o.name);
        // Names that are tables in a file and views over PostgreSQL's own tables, where the
        // writers' coordination needs columns a file has not.
        for (const char* name : {"environments", "indexer_checkpoints", "backfill_ranges"}) {
            SurfaceObject o = SurfaceObject::view(QString::fromLatin1(name), QString());
            o.pgSelect = pg::pgViewSelect(o.name);
            s.prepend(o);
        }
        return s;
    }();
    return all;
}

namespace {

QString describe(const SurfaceFinding& f)
{
    const QString what = QStringLiteral("%1 %2").arg(f.object->kind == SurfaceObject::Kind::View
                                                         ? QStringLiteral("view")
                                                         : QStringLiteral("trigger"),
                                                     f.object->name);
    switch (f.state) {
    case SurfaceFinding::State::Missing:
        return what + QStringLiteral(" (missing)");
    case SurfaceFinding::State::Altered:
        return what + QStringLiteral(" (defined otherwise)");
    case SurfaceFinding::State::NameTaken:
        return what + QStringLiteral(" (its name is held by a %1)").arg(f.holder);
    }
    return what;
}

} // namespace

QString describeFindings(const QList<SurfaceFinding>& findings)
{
    QStringList parts;
    for (const SurfaceFinding& f : findings)
        parts << describe(f);
    return parts.join(QStringLiteral(", "));
}

QString restoredLine(const QString& database, const QList<SurfaceFinding>& restored)
{
    return QStringLiteral("database %1: restored the contract's %2 to the schema's definition in "
                          "one transaction; no stored row was changed")
        .arg(database, describeFindings(restored));
}

QString refusalLine(const QString& database, const QList<SurfaceFinding>& found,
                    const QString& writableCommand)
{
    for (const SurfaceFinding& f : found)
        if (f.state == SurfaceFinding::State::NameTaken)
            return QStringLiteral("database %1: the contract's view %2 is missing and a %3 holds "
                                  "its name, which Forkscope will not drop: rename or drop that "
                                  "%3 yourself, then open the database again to restore the view")
                .arg(database, f.object->name, f.holder);
    return QStringLiteral("database %1: the contract's %2 cannot be restored by a read-only open; "
                          "run `%3` once where the database can be written (or open it in the "
                          "app): that restores the contract's views and triggers in one "
                          "transaction")
        .arg(database, describeFindings(found), writableCommand);
}

StoreError::Kind refusalKind(const QList<SurfaceFinding>& found)
{
    const bool taken = std::any_of(found.begin(), found.end(), [](const SurfaceFinding& f) {
        return f.state == SurfaceFinding::State::NameTaken;
    });
    return taken ? StoreError::Kind::Query : StoreError::Kind::ReadOnly;
}

} // namespace forkscope::store
