#include "AuditQueryChoice.h"

#include "ForeignPreset.h"

#include <QStringList>

namespace forkscope::foreign {

QString resolveAuditQuery(const AuditQueryChoice& choice, QString* error,
                          const AuditQueryFieldNames& names)
{
    if (choice.query.has_value() == choice.preset.has_value()) {
        *error = QStringLiteral("give %1 or %2 (one of them)").arg(names.query, names.preset);
        return {};
    }
    if (choice.table && !choice.preset) {
        *error = QStringLiteral("%1 goes with %2 (a %3 names its own tables)")
                     .arg(names.table, names.preset, names.query);
        return {};
    }
    if (choice.query) {
        const QString q = choice.query->trimmed();
        if (q.isEmpty())
            *error = QStringLiteral("%1: expected a SQL query").arg(names.query);
        return q;
    }
    const auto named = presetNamed(*choice.preset);
    if (!named) {
        *error = QStringLiteral("%1: `%2` is none of %3")
                     .arg(names.preset, *choice.preset, presetNames().join(QStringLiteral(", ")));
        return {};
    }
    const QString name = choice.table ? *choice.table : defaultTable(*named);
    const QString q = presetQuery(*named, name);
    if (q.isEmpty())
        *error = QStringLiteral("%1: `%2` is not a table name (letters, digits and _, "
                                "optionally schema.table)")
                     .arg(names.table, name);
    return q;
}

} // namespace forkscope::foreign
