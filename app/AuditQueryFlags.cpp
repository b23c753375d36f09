#include "AuditQueryFlags.h"

#include "foreign/ForeignPreset.h"

namespace forkscope::app {

void AuditQueryFlags::addTo(QCommandLineParser& p) const
{
    for (const QCommandLineOption* o : {&query, &preset, &table})
        p.addOption(*o);
}

QString AuditQueryFlags::resolve(const QCommandLineParser& p, QString* error) const
{
    if (p.isSet(query) == p.isSet(preset)) {
        *error = QStringLiteral("give --query or --preset (one of them)");
        return {};
    }
    if (p.isSet(table) && !p.isSet(preset)) {
        *error = QStringLiteral("--table goes with --preset (a --query names its own tables)");
        return {};
    }
    if (p.isSet(query)) {
        const QString q = p.value(query).trimmed();
        if (q.isEmpty())
            *error = QStringLiteral("--query: expected a SQL query");
        return q;
    }
    const auto named = foreign::presetNamed(p.value(preset));
    if (!named) {
        *error = QStringLiteral("--preset: `%1` is none of %2")
                     .arg(p.value(preset), foreign::presetNames().join(QStringLiteral(", ")));
        return {};
    }
    const QString name = p.isSet(table) ? p.value(table) : foreign::defaultTable(*named);
    const QString q = foreign::presetQuery(*named, name);
    if (q.isEmpty())
        *error = QStringLiteral("--table: `%1` is not a table name (letters, digits and _, "
                                "optionally schema.table)")
                     .arg(name);
    return q;
}

} // namespace forkscope::app
