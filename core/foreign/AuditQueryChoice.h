#pragma once

#include <QString>
#include <optional>

namespace forkscope::foreign {

// Which rows of another indexer's database to audit, as a user gave it: a query of their
// own, or a preset (ForeignPreset) over its default table or a named one. The same rules for
// `forkscope audit`, `forkscope lab run` and the app's Run lab scenario dialog.
struct AuditQueryChoice
{
    std::optional<QString> query;  // nullopt: not given
    std::optional<QString> preset; // a ForeignPreset's name
    std::optional<QString> table;  // with a preset only
};

// What error lines call the three fields: the flags' names, or the dialog's labels.
struct AuditQueryFieldNames
{
    QString query = QStringLiteral("--query");
    QString preset = QStringLiteral("--preset");
    QString table = QStringLiteral("--table");
};

// The query the choice gives, or empty with `error` set to one line saying what was wrong.
QString resolveAuditQuery(const AuditQueryChoice& choice, QString* error,
                          const AuditQueryFieldNames& names = {});

} // namespace forkscope::foreign
