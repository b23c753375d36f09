#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace forkscope::store {

// One numbered, forward-only schema step. Statements are plain SQL that SQLite and
// PostgreSQL both accept, except where a step says otherwise.
struct Migration
{
    int version;
    QString description;
    QStringList statements;
    // Each a SELECT of one value: NULL when all is well, else a message that aborts the
    // step (its transaction rolls back) and is shown to the user.
    QStringList checks = {};
    // Run after the checks passed (e.g. dropping what the checks compared against).
    QStringList finalStatements = {};
};

const QList<Migration>& migrations();
int latestSchemaVersion();

} // namespace forkscope::store
