#pragma once

#include "StoreError.h"

#include <QHash>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariant>
#include <chrono>
#include <functional>
#include <memory>

struct sqlite3;

namespace forkscope::store {

class WalCheckpointer;

// Every timestamp the store writes: UTC, ISO 8601 with milliseconds, so that they sort and
// compare as text.
QString nowUtc();

// One SQLite connection, owned by the thread that opened it (Qt SQL connections must not
// cross threads). Opening is careful: a file that is not SQLite, is corrupt, or carries a
// newer schema is refused before anything is written to it.
class Database
{
public:
    struct Options
    {
        bool readOnly = false;
        std::chrono::milliseconds busyTimeout{5000};
        // For the one connection that writes in bulk (the indexer): its WAL is copied back
        // into the database file by a WalCheckpointer thread instead of inside its COMMITs.
        bool checkpointInBackground = false;
        // With readOnly, for a database in a place this process cannot write (a read-only
        // filesystem, a directory of someone else's): SQLite needs FILE-wal and FILE-shm next
        // to a WAL database even to read it, and fails when it can neither open nor create
        // them (SQLITE_CANTOPEN, or SQLITE_READONLY_DIRECTORY). On exactly those errors the
        // file is opened again another way; readOnlyPlace() says which.
        bool readInReadOnlyPlace = false;
        // The most page cache this connection keeps, in KiB (SQLite's cache_size): once warm
        // it holds that much for as long as it is open, so it bounds the process's memory
        // per connection. The bulk writer needs a large one (bulkWriter()); readers and
        // small writers keep about SQLite's default (a reader that scans a growing table
        // every second, like the outbox counts, fills whatever it is given).
        int cacheKiB = 2 * 1024;
        static constexpr int kBulkWriterCacheKiB = 16 * 1024;

        static Options bulkWriter()
        {
            Options o;
            o.checkpointInBackground = true;
            o.cacheKiB = kBulkWriterCacheKiB;
            return o;
        }
    };

    // How a read-only open in a place it cannot write read the file (Options::readInReadOnlyPlace).
    enum class ReadOnlyPlace {
        No, // an ordinary open, with SQLite's locks and FILE-shm
        // No FILE-wal to read: SQLite's immutable=1 (no locks, no -shm). Exact while nobody
        // writes to the file; if a FILE-wal could not be read this way either, its commits
        // are missing.
        Immutable,
        // A FILE-wal without its FILE-shm: read whole through SQLite's lock-free VFS
        // (unix-none), its index rebuilt in memory (locking_mode=EXCLUSIVE). Exact while
        // nobody writes to the file.
        WalWithoutLocks,
    };

    static std::unique_ptr<Database> open(const QString& path, const Options& options);
    static std::unique_ptr<Database> open(const QString& path) { return open(path, Options{}); }
    ~Database();

    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    const QString& path() const { return m_path; }
    bool isReadOnly() const { return m_options.readOnly; }
    ReadOnlyPlace readOnlyPlace() const { return m_readOnlyPlace; }
    // After a writable open that had to restore the contract's views or triggers: the one
    // line that says which (ContractSurface.h); empty when nothing was restored.
    const QString& restoredSurface() const { return m_restoredSurface; }
    int schemaVersion() const { return m_schemaVersion; }
    QSqlDatabase& connection() { return m_db; }
    // The raw handle, for registering custom SQL functions (sqlite3_create_function).
    sqlite3* sqliteHandle();

    // A prepared statement, cached per SQL text. Bind with bindValue, then run with exec().
    QSqlQuery& prepared(const QString& sql);
    // Runs a prepared (or freshly prepared) query; throws a typed StoreError on failure.
    void exec(QSqlQuery& query, const QString& context = {});
    // Convenience: prepare, bind positionally, run.
    QSqlQuery run(const QString& sql, const QVariantList& args = {});
    // The same with the statement prepared once and cached (for statements that run every
    // round). The returned query stays owned here; finish() it after reading a SELECT.
    QSqlQuery& runCached(const QString& sql, const QVariantList& args);

    // Write transaction (BEGIN IMMEDIATE takes the write lock up front, so a second writer
    // waits or fails fast instead of deadlocking on a lock upgrade).
    void beginWrite();
    void commit();
    void rollback() noexcept;
    // True between BEGIN and COMMIT/ROLLBACK on this connection, so a helper that normally
    // commits on its own can join a caller's transaction instead of nesting BEGIN (an error).
    bool inTransaction();

    StoreError errorFrom(const QSqlError& e, const QString& context) const;
    // What run() and prepared() check before any statement: a writable connection to a file SQLite
    // has reported damaged refuses to go on. For statements run on sqliteHandle() directly.
    void checkBeforeStatement()
    {
        if (!m_options.readOnly)
            refuseIfCorrupt();
    }
    // WAL checkpoints a WalCheckpointer ran for this connection (0 without one).
    int backgroundCheckpoints() const;

private:
    Database(QString path, QString connectionName, const Options& options);
    int readSchemaVersion();
    // PRAGMA quick_check, once per file and process, before the first write.
    void checkIntegrityOnce();
    // A file this process created has nothing to check.
    void markIntegrityChecked();
    // Throws StoreError::Corrupt once SQLite has reported this file damaged.
    void refuseIfCorrupt();
    // Options::readInReadOnlyPlace: after SQLITE_CANTOPEN or SQLITE_READONLY_DIRECTORY only.
    bool reopenForReadOnlyPlace();
    void reopenUri(const QString& query);
    // Every view and trigger of the contract as the schema defines it, restored on a
    // writable open and refused on a read-only one (DatabaseSurface.cpp).
    void checkContractSurface();
    void retryWhileLocked(const std::function<void()>& step);
    void migrate();

    QString m_path;
    QString m_connectionName;
    Options m_options;
    QSqlDatabase m_db;
    QHash<QString, QSqlQuery> m_statements;
    int m_schemaVersion = 0;
    QString m_canonicalPath;                // the file's identity for the corruption registry
    std::uint64_t m_corruptionBaseline = 0; // corruption reports on this thread at open
    std::unique_ptr<WalCheckpointer> m_checkpointer;
    ReadOnlyPlace m_readOnlyPlace = ReadOnlyPlace::No;
    QString m_restoredSurface;
};

// Rolls back unless commit() was called: an exception between BEGIN and COMMIT must leave
// nothing half-written.
class WriteTransaction
{
public:
    explicit WriteTransaction(Database& db) : m_db(db) { m_db.beginWrite(); }
    ~WriteTransaction()
    {
        if (!m_done)
            m_db.rollback();
    }
    void commit()
    {
        m_db.commit();
        m_done = true;
    }
    WriteTransaction(const WriteTransaction&) = delete;
    WriteTransaction& operator=(const WriteTransaction&) = delete;

private:
    Database& m_db;
    bool m_done = false;
};

// Every read made under it sees one database state, even while an indexer commits (a WAL
// reader keeps its snapshot): a report or an audit never mixes two commits. A read
// transaction writes nothing; ROLLBACK ends it. Inside a caller's transaction it joins it.
class ReadSnapshot
{
public:
    explicit ReadSnapshot(Database& db) : m_db(db)
    {
        if (!m_db.inTransaction()) {
            m_db.run(QStringLiteral("BEGIN"));
            m_owned = true;
        }
    }
    ~ReadSnapshot()
    {
        if (m_owned)
            m_db.rollback();
    }
    ReadSnapshot(const ReadSnapshot&) = delete;
    ReadSnapshot& operator=(const ReadSnapshot&) = delete;

private:
    Database& m_db;
    bool m_owned = false;
};

} // namespace forkscope::store
