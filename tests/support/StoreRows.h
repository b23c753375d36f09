#pragma once

// The stores a suite runs the same test code on, as data rows: a column `backend`
// ("sqlite", "postgresql") and, for each test on the PostgreSQL row, a database of its own
// on one throwaway cluster the suite starts once (lab::PgLab), so a test sees only what it
// wrote, as it does with a SQLite file of its own.
#include "lab/PgLab.h"

#include <QString>
#include <QStringList>

namespace forkscope::test {

class StoreRows
{
public:
    // The two backends, as the `backend` column names them.
    static QStringList backends();
    // Adds the `backend` column and one row per store: for a test with no other column.
    static void backendRows();

    // Starts the suite's cluster: once, in initTestCase.
    void startCluster();
    // The --db of a new, empty store on `backend`: empty for "sqlite" (the lab's own file),
    // else the URL of a database created for it on the cluster.
    QString freshDatabase(const QString& backend);
    lab::PgLab& cluster() { return m_cluster; }

private:
    lab::PgLab m_cluster;
    int m_databases = 0;
};

} // namespace forkscope::test
