#pragma once

#include "ContractReader.h"

#include <QString>
#include <memory>

namespace forkscope::store {

class Database;
namespace pg {
class PgConnection;
}

// A read-only connection to whichever store a --db value names (a SQLite file, or a
// postgresql:// URL) with its contract reader, for the readers that work on both: the
// SQLite file opened read-only, the PostgreSQL database never migrated (reading refuses
// another contract version and says what to run).
class ReadOnlyStore
{
public:
    // Throws StoreError (PgError on PostgreSQL) naming the database. `readOnlyPlace`: a
    // file in a place this user cannot write is read all the same
    // (Database::Options::readInReadOnlyPlace).
    static std::unique_ptr<ReadOnlyStore> open(const QString& db, bool readOnlyPlace = false);
    ~ReadOnlyStore();

    ContractReader& reader() { return *m_reader; }
    // The version of the contract it reads: the file's schema, or the PostgreSQL contract
    // (open() refused any other).
    int schemaVersion() const;
    // The one that is open; the other is null.
    Database* sqlite() { return m_sqlite.get(); }
    pg::PgConnection* pg() { return m_pg.get(); }

private:
    ReadOnlyStore() = default;
    std::unique_ptr<Database> m_sqlite;
    std::unique_ptr<pg::PgConnection> m_pg;
    std::unique_ptr<ContractReader> m_reader;
};

} // namespace forkscope::store
