#include "StoreRows.h"
#include "store/pg/PgConnection.h"

#include <QtTest>

namespace forkscope::test {

QStringList StoreRows::backends()
{
    return {QStringLiteral("sqlite"), QStringLiteral("postgresql")};
}

void StoreRows::backendRows()
{
    QTest::addColumn<QString>("backend");
    for (const QString& b : backends())
        QTest::newRow(qPrintable(b)) << b;
}

void StoreRows::startCluster()
{
    m_cluster.start();
}

QString StoreRows::freshDatabase(const QString& backend)
{
    if (backend == QLatin1String("sqlite"))
        return {};
    if (!m_cluster.isRunning())
        throw std::logic_error("StoreRows: a postgresql row before startCluster()");
    const QString name = QStringLiteral("t%1").arg(++m_databases);
    store::pg::PgConnection::open(m_cluster.url())
        ->exec(QStringLiteral("CREATE DATABASE %1").arg(name).toUtf8().constData());
    return QStringLiteral("postgresql://postgres@127.0.0.1:%1/%2").arg(m_cluster.port()).arg(name);
}

} // namespace forkscope::test
