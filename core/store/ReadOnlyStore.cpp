#include "ReadOnlyStore.h"
#include "Database.h"
#include "pg/PgConnection.h"
#include "pg/PgContract.h"
#include "pg/PgContractReader.h"

namespace forkscope::store {

std::unique_ptr<ReadOnlyStore> ReadOnlyStore::open(const QString& db, bool readOnlyPlace)
{
    std::unique_ptr<ReadOnlyStore> s(new ReadOnlyStore);
    if (pg::isPostgresUrl(db)) {
        s->m_pg = pg::PgConnection::open(db);
        pg::requireCurrentPgContract(*s->m_pg);
        s->m_reader = std::make_unique<pg::PgContractReader>(*s->m_pg);
    } else {
        Database::Options ro;
        ro.readOnly = true;
        ro.readInReadOnlyPlace = readOnlyPlace;
        s->m_sqlite = Database::open(db, ro);
        s->m_reader = std::make_unique<SqliteContractReader>(*s->m_sqlite);
    }
    return s;
}

int ReadOnlyStore::schemaVersion() const
{
    return m_sqlite ? m_sqlite->schemaVersion() : pg::kPgContractVersion;
}

// The reader refers to the connection, so it goes first.
ReadOnlyStore::~ReadOnlyStore()
{
    m_reader.reset();
}

} // namespace forkscope::store
