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
};

const QList<Migration>& migrations();
int latestSchemaVersion();

} // namespace forkscope::store
