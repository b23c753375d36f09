#pragma once

#include "indexer/EnvironmentRegistry.h"

#include <QStringList>
#include <memory>

namespace forkscope::store {
class Database;
class ContractReader;
} // namespace forkscope::store
namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::lab {

// The environments of one database as a lab reset changes them, on SQLite or a shared
// PostgreSQL index alike: one write transaction that first takes the database's lock (so a
// locked database fails before the node is touched), then archives the old chain's
// environments and registers the new one together. Rows are counted through the
// contract's read surface.
class EnvironmentBook
{
public:
    virtual ~EnvironmentBook();
    static std::unique_ptr<EnvironmentBook> sqlite(store::Database& db);
    static std::unique_ptr<EnvironmentBook> shared(store::pg::PgConnection& db);
    // The same, owning its connection (store::openEnvironmentBook).
    static std::unique_ptr<EnvironmentBook> sqlite(std::unique_ptr<store::Database> db);
    static std::unique_ptr<EnvironmentBook> shared(std::unique_ptr<store::pg::PgConnection> db);

    // Opens the transaction and takes the lock; throws StoreError.
    virtual void begin() = 0;
    virtual void commit() = 0;
    virtual void rollback() noexcept = 0;
    virtual QList<indexer::Environment> list() = 0;
    virtual void archive(const QString& id, const QString& archivedAt) = 0;
    // The new chain's environment, with no contract set yet: its first indexer's becomes it.
    virtual void open(const QString& id, std::uint64_t chainId, const chain::Hash32& genesis,
                      const QUrl& rpcUrl) = 0;
    virtual store::ContractReader& reader() = 0;

    // Rows of `table` (a contract name) under any of `envIds`.
    qint64 countRows(const QString& table, const QStringList& envIds);
};

} // namespace forkscope::lab
