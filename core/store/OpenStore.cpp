#include "OpenStore.h"
#include "SqliteIndexStore.h"
#include "SqliteOutboxQueue.h"
#include "audit/DatabaseInUse.h"
#include "lab/EnvironmentBook.h"
#include "pg/PgConnection.h"
#include "pg/PgContract.h"
#include "pg/PgIndexStore.h"
#include "pg/PgOutboxQueue.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QHostInfo>
#include <QUrl>

namespace forkscope::store {

QString defaultOwner()
{
    return QStringLiteral("%1/%2")
        .arg(QHostInfo::localHostName())
        .arg(QCoreApplication::applicationPid());
}

std::unique_ptr<lab::EnvironmentBook> openEnvironmentBook(const QString& url,
                                                          QString* restoredSurface)
{
    restoredSurface->clear();
    if (pg::isPostgresUrl(url)) {
        auto db = pg::PgConnection::open(url);
        pg::requireCurrentPgContract(*db);
        return lab::EnvironmentBook::shared(std::move(db));
    }
    if (!QFileInfo::exists(url))
        throw StoreError(
            StoreError::Kind::Io,
            QStringLiteral("database %1 does not exist; `forkscope index` creates it").arg(url));
    auto db = Database::open(url);
    *restoredSurface = db->restoredSurface();
    return lab::EnvironmentBook::sqlite(std::move(db));
}

QString describeDatabase(const QString& url)
{
    return pg::isPostgresUrl(url) ? QUrl(url).toString(QUrl::RemovePassword) : url;
}

std::unique_ptr<indexer::IndexStore> openIndexStore(const QString& url, const StoreOptions& options)
{
    const QString owner = options.owner.isEmpty() ? defaultOwner() : options.owner;
    if (pg::isPostgresUrl(url)) {
        auto store = std::make_unique<pg::PgIndexStore>(url, owner, options.rangeLease);
        store->setOrphanRetention(options.orphanRetention);
        store->setBalanceFoldAfter(options.balanceFoldAfter);
        return store;
    }
    if (options.existing && !QFileInfo::exists(url))
        throw StoreError(StoreError::Kind::Io,
                         QStringLiteral("database %1 does not exist").arg(url));
    // Before this process opens the file (the probe must not run beside its own connection).
    if (options.alone)
        if (const auto user = audit::otherDatabaseUser(url))
            throw StoreError(StoreError::Kind::Locked,
                             QStringLiteral("database %1 is open in another process (pid %2: a "
                                            "running `forkscope index` or the app?); stop it "
                                            "first")
                                 .arg(url)
                                 .arg(user->pid));
    auto store = SqliteIndexStore::open(url, options.bulkWriter ? Database::Options::bulkWriter()
                                                                : Database::Options{});
    store->setOrphanRetention(options.orphanRetention);
    return store;
}

std::unique_ptr<outbox::OutboxQueue> openOutboxQueue(const QString& url,
                                                     const QString& environmentId,
                                                     std::uint64_t chainId,
                                                     const StoreOptions& options)
{
    if (pg::isPostgresUrl(url))
        return std::make_unique<pg::PgOutboxQueue>(
            url, environmentId, chainId, options.owner.isEmpty() ? defaultOwner() : options.owner);
    return std::make_unique<SqliteOutboxQueue>(url, environmentId, chainId);
}

} // namespace forkscope::store
