#include "EnvironmentBook.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContractReader.h"
#include "store/pg/PgEnvironmentRegistry.h"

#include <optional>

namespace forkscope::lab {

EnvironmentBook::~EnvironmentBook() = default;

qint64 EnvironmentBook::countRows(const QString& table, const QStringList& envIds)
{
    if (envIds.isEmpty())
        return 0;
    QStringList marks;
    QVariantList args;
    for (const QString& id : envIds) {
        marks << QStringLiteral("?");
        args << id;
    }
    return reader().scalar(QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id IN (%2)")
                               .arg(table, marks.join(QLatin1Char(','))),
                           args);
}

namespace {

class SqliteBook : public EnvironmentBook
{
public:
    explicit SqliteBook(store::Database& db) : m_db(db), m_registry(db), m_reader(db) {}
    explicit SqliteBook(std::unique_ptr<store::Database> owned)
        : m_owned(std::move(owned)), m_db(*m_owned), m_registry(m_db), m_reader(m_db)
    {
    }
    // BEGIN IMMEDIATE: the write lock up front, with the usual busy timeout.
    void begin() override { m_tx.emplace(m_db); }
    void commit() override { m_tx->commit(); }
    void rollback() noexcept override { m_tx.reset(); }
    QList<indexer::Environment> list() override { return m_registry.list(); }
    void archive(const QString& id, const QString& at) override { m_registry.archive(id, at); }
    void open(const QString& id, std::uint64_t chainId, const chain::Hash32& genesis,
              const QUrl& rpcUrl) override
    {
        m_registry.openForIndexing(id, chainId, genesis, rpcUrl);
    }
    store::ContractReader& reader() override { return m_reader; }

private:
    std::unique_ptr<store::Database> m_owned; // first: the parts below refer to it
    store::Database& m_db;
    indexer::EnvironmentRegistry m_registry;
    store::SqliteContractReader m_reader;
    std::optional<store::WriteTransaction> m_tx;
};

class SharedBook : public EnvironmentBook
{
public:
    explicit SharedBook(store::pg::PgConnection& db) : m_db(db), m_registry(db), m_reader(db) {}
    explicit SharedBook(std::unique_ptr<store::pg::PgConnection> owned)
        : m_owned(std::move(owned)), m_db(*m_owned), m_registry(m_db), m_reader(m_db)
    {
    }
    void begin() override
    {
        m_db.begin();
        // Transaction-scoped ('Fksc' + 2: environments): two resets never interleave, and
        // the connection's lock timeout fails a blocked one before the node is touched.
        m_db.exec("SELECT pg_advisory_xact_lock(1181445987, 2)");
    }
    void commit() override { m_db.commit(); }
    void rollback() noexcept override { m_db.rollback(); }
    QList<indexer::Environment> list() override { return m_registry.list(); }
    void archive(const QString& id, const QString& at) override { m_registry.archive(id, at); }
    void open(const QString& id, std::uint64_t chainId, const chain::Hash32& genesis,
              const QUrl& rpcUrl) override
    {
        m_registry.openForIndexing(id, chainId, genesis, rpcUrl, {});
    }
    store::ContractReader& reader() override { return m_reader; }

private:
    std::unique_ptr<store::pg::PgConnection> m_owned; // first: the parts below refer to it
    store::pg::PgConnection& m_db;
    store::pg::PgEnvironmentRegistry m_registry;
    store::pg::PgContractReader m_reader;
};

} // namespace

std::unique_ptr<EnvironmentBook> EnvironmentBook::sqlite(store::Database& db)
{
    return std::make_unique<SqliteBook>(db);
}

std::unique_ptr<EnvironmentBook> EnvironmentBook::shared(store::pg::PgConnection& db)
{
    return std::make_unique<SharedBook>(db);
}

std::unique_ptr<EnvironmentBook> EnvironmentBook::sqlite(std::unique_ptr<store::Database> db)
{
    return std::make_unique<SqliteBook>(std::move(db));
}

std::unique_ptr<EnvironmentBook>
EnvironmentBook::shared(std::unique_ptr<store::pg::PgConnection> db)
{
    return std::make_unique<SharedBook>(std::move(db));
}

} // namespace forkscope::lab
