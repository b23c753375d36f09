#include "StoreRows.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"

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
    const auto urlOf = [this](const QString& database) {
        return QStringLiteral("postgresql://postgres@127.0.0.1:%1/%2")
            .arg(m_cluster.port())
            .arg(database);
    };
    const auto cluster = store::pg::PgConnection::open(m_cluster.url());
    // Each a copy of one database the contract was created in once: a test's first run
    // then finds it current instead of migrating it from nothing again.
    if (m_databases == 0) {
        cluster->exec("CREATE DATABASE contract");
        store::pg::ensurePgContract(
            *store::pg::PgConnection::open(urlOf(QStringLiteral("contract"))));
    }
    const QString name = QStringLiteral("t%1").arg(++m_databases);
    cluster->exec(
        QStringLiteral("CREATE DATABASE %1 TEMPLATE contract").arg(name).toUtf8().constData());
    return urlOf(name);
}

} // namespace forkscope::test
