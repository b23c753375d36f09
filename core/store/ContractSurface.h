#pragma once

#include "StoreError.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace forkscope::store {

// The contract's read surface as the latest schema defines it, on either store: the views
// under the names docs/design.md documents and, on SQLite, the INSTEAD OF triggers that keep
// them editable. They hold no data, and anyone with `sqlite3` or `psql` can drop or replace one;
// a reader would then fail on a missing name or, worse, read a wrong definition. So every
// open compares the database with this list: a writable open recreates what differs in one
// transaction and says so in one line, a read-only open refuses in one line naming it.
struct SurfaceObject
{
    enum class Kind { View, Trigger };
    Kind kind;
    QString name;
    // The CREATE statement exactly as SQLite stores it (sqlite_master.sql); empty when the
    // object does not exist on SQLite.
    QString sqlite;
    // A view's SELECT on PostgreSQL; empty when the object does not exist there.
    QByteArray pgSelect;

    static SurfaceObject view(const QString& name, const QString& sqlite)
    {
        return {Kind::View, name, sqlite, {}};
    }
    static SurfaceObject trigger(const QString& name, const QString& sqlite)
    {
        return {Kind::Trigger, name, sqlite, {}};
    }
};

// Views first: on SQLite a view's triggers go with it, so they are recreated after it.
const QList<SurfaceObject>& contractSurface();

// What an open found wrong with one object of the surface.
struct SurfaceFinding
{
    enum class State {
        Missing,   // no object of that name
        Altered,   // there, with another definition
        NameTaken, // a view's name is held by a table (or another kind): not ours to drop
    };
    const SurfaceObject* object;
    State state;
    QString holder; // NameTaken: what holds the name ("table", "index", ...)
};

// "view transfer_events (missing), trigger outbox_update (altered)".
QString describeFindings(const QList<SurfaceFinding>& findings);

// The line a writable open says after restoring `restored` in `database`.
QString restoredLine(const QString& database, const QList<SurfaceFinding>& restored);

// The refusal of an open that cannot restore `found`: a read-only one (`writableCommand` is
// what to run where the database can be written), or any open when a table holds a view's
// name (`writableCommand` ignored).
QString refusalLine(const QString& database, const QList<SurfaceFinding>& found,
                    const QString& writableCommand);
// Its kind: Query when a table holds a view's name (no open restores that), else ReadOnly.
StoreError::Kind refusalKind(const QList<SurfaceFinding>& found);

} // namespace forkscope::store
