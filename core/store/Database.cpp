#include "Database.h"
#include "CorruptionWatch.h"
#include "Migrations.h"
#include "SqlFunctions.h"
#include "WalCheckpointer.h"

#include <QAtomicInteger>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSqlDriver>
#include <QSqlError>
#include <QThread>
#include <QUrl>

#include <algorithm>
#include <sqlite3.h>

namespace forkscope::store {

namespace {

QString nextConnectionName()
{
    static QAtomicInteger<quint64> counter;
    return QStringLiteral("forkscope-%1-%2")
        .arg(quintptr(QThread::currentThreadId()))
        .arg(counter.fetchAndAddRelaxed(1));
}

// Reads the 16-byte magic header through SQLite's own file object (no transaction, so no
// -wal or -shm is opened or created). SQLite's close defers closing the descriptor while
// other connections of this process hold locks on the file, which is the whole point.
void probeIsSqlite(const QString& path)
{
    sqlite3* h = nullptr;
    const QByteArray name = QFile::encodeName(path); // a name conversion; opens nothing
    QByteArray magic(16, '\0');
    int rc = sqlite3_open_v2(name.constData(), &h, SQLITE_OPEN_READONLY, nullptr);
    if (rc == SQLITE_OK) {
        sqlite3_file* file = nullptr;
        rc = sqlite3_file_control(h, "main", SQLITE_FCNTL_FILE_POINTER, &file);
        if (rc == SQLITE_OK && file && file->pMethods)
            rc = file->pMethods->xRead(file, magic.data(), int(magic.size()), 0);
        else
            rc = SQLITE_ERROR;
    }
    sqlite3_close_v2(h);
    // A short file reads as zeros (SQLITE_IOERR_SHORT_READ) and fails the comparison below.
    if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ)
        return; // cannot read it here: the real connection reports why, in context
    if (magic != QByteArray("SQLite format 3\0", 16))
        throw StoreError(StoreError::Kind::NotADatabase,
                         QStringLiteral("%1 is not a SQLite database (it does not start with "
                                        "the SQLite header); refusing to touch it")
                             .arg(path));
}

} // namespace

QString nowUtc()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

Database::Database(QString path, QString connectionName, const Options& options)
    : m_path(std::move(path)), m_connectionName(std::move(connectionName)), m_options(options)
{
}

Database::~Database()
{
    m_checkpointer.reset(); // before the connection whose WAL hook it holds closes
    m_statements.clear();
    if (m_db.isValid()) {
        m_db.close();
        m_db = QSqlDatabase();
    }
    QSqlDatabase::removeDatabase(m_connectionName);
}

namespace {
// The file as a SQLite URI with `query` (QUrl percent-encodes '?', '#' and '%' in the path).
QString fileUri(const QString& path, const QString& query)
{
    return QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString(QUrl::FullyEncoded) +
           QLatin1Char('?') + query;
}
} // namespace

std::unique_ptr<Database> Database::open(const QString& path, const Options& options)
{
    // A PostgreSQL URL is not a file name: taken as one, it became "directory postgresql:/...
    // does not exist". Say what is and is not there yet instead.
    static const QRegularExpression pgUrl(QStringLiteral("^postgres(ql)?://"),
                                          QRegularExpression::CaseInsensitiveOption);
    if (pgUrl.match(path).hasMatch())
        throw StoreError(StoreError::Kind::Unsupported,
                         QStringLiteral("%1: this reads and writes SQLite only; `forkscope "
                                        "index`, `report`, `verify`, `repair`, `lab reset` and "
                                        "the app take a PostgreSQL URL, and `forkscope pg-lab` "
                                        "starts a cluster: give a database file path here")
                             .arg(QUrl(path).toString(QUrl::RemovePassword)));
    const QFileInfo fi(path);
    if (fi.exists() && !fi.isFile())
        throw StoreError(
            StoreError::Kind::Io,
            QStringLiteral("%1 is not a regular file; pass a database file path").arg(path));
    if (!fi.exists()) {
        if (options.readOnly)
            throw StoreError(StoreError::Kind::Io,
                             QStringLiteral("database %1 does not exist").arg(path));
        if (!fi.absoluteDir().exists())
            throw StoreError(StoreError::Kind::Io,
                             QStringLiteral("cannot create database %1: directory %2 does not "
                                            "exist")
                                 .arg(path, fi.absolutePath()));
    }
    corruption_watch::install();
    // Is it SQLite at all? Asked through SQLite itself, never by reading the file: POSIX
    // advisory locks belong to the process, and close() of ANY descriptor of the file drops
    // every lock this process's other connections hold on it (sqlite.org/howtocorrupt.html,
    // 2.2). Another process then finds the file unlocked and deletes the -wal and -shm under
    // a running indexer, whose later commits are lost. SQLite keeps such descriptors open
    // until the process's last connection to the file is gone.
    if (fi.exists() && fi.size() > 0)
        probeIsSqlite(path);

    std::unique_ptr<Database> db(new Database(path, nextConnectionName(), options));
    db->m_db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), db->m_connectionName);
    db->m_db.setDatabaseName(path);
    QString connectOptions =
        QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(options.busyTimeout.count());
    if (options.readOnly)
        connectOptions += QStringLiteral(";QSQLITE_OPEN_READONLY");
    db->m_db.setConnectOptions(connectOptions);
    db->m_corruptionBaseline = corruption_watch::reportsOnThisThread();
    if (!db->m_db.open())
        throw db->errorFrom(db->m_db.lastError(), QStringLiteral("open"));
    db->m_canonicalPath = QFileInfo(path).canonicalFilePath();
    if (sqlite3* h = db->sqliteHandle())
        registerSqlFunctions(h);

    // Reading the version first means a newer file is refused before any pragma or
    // migration writes to it.
    try {
        db->m_schemaVersion = db->readSchemaVersion();
    } catch (const StoreError&) {
        if (!db->reopenForReadOnlyPlace())
            throw;
        db->m_schemaVersion = db->readSchemaVersion();
    }
    if (db->m_schemaVersion > latestSchemaVersion())
        throw StoreError(StoreError::Kind::NewerSchema,
                         QStringLiteral("database %1 has schema version %2, but this Forkscope "
                                        "only knows versions up to %3; upgrade Forkscope or use "
                                        "another database file")
                             .arg(path)
                             .arg(db->m_schemaVersion)
                             .arg(latestSchemaVersion()));
    // The page cache's bound (Options::cacheKiB), set once the page size is final: SQLite
    // turns a size in KiB into pages at the page size of the moment, and keeps the count.
    const auto boundPageCache = [&] {
        db->run(QStringLiteral("PRAGMA cache_size=-%1").arg(std::max(1, options.cacheKiB)));
    };
    if (options.readOnly) {
        boundPageCache(); // writes nothing to the file
        if (db->m_schemaVersion < latestSchemaVersion())
            throw StoreError(StoreError::Kind::ReadOnly,
                             QStringLiteral("database %1 has schema version %2 and needs "
                                            "migrating to %3, which a read-only open cannot do: "
                                            "run forkscope index on it once (or open it in the "
                                            "app), which migrates it in place in one transaction")
                                 .arg(path)
                                 .arg(db->m_schemaVersion)
                                 .arg(latestSchemaVersion()));
        db->checkContractSurface();
        return db;
    }

    // A damaged file is refused before the first byte is written to it (appending to a
    // corrupt b-tree spreads the damage and makes the later repair harder).
    if (fi.exists() && fi.size() > 0) {
        db->checkIntegrityOnce();
    } else {
        db->markIntegrityChecked();
    }

    // WAL: readers (the GUI's snapshot queries, report export) never block the indexer's
    // commits. synchronous=NORMAL is durable across process crashes (kill -9), which is the
    // failure the invariants are written for; after a power loss the last commits may be
    // lost but data and checkpoint still go together, so nothing is inconsistent.
    if (db->m_schemaVersion == 0) {
        // A new file: larger pages mean fewer, larger writes for the indexer's batch commits.
        // (page_size only takes effect before the first table exists.)
        db->run(QStringLiteral("PRAGMA page_size=16384"));
    }
    // Switching a fresh file to WAL needs exclusive access, and SQLite reports a busy
    // database here without consulting the busy handler; two processes opening a new file
    // at once (two indexers) must both succeed, so retry within the busy timeout.
    db->retryWhileLocked([&] { db->run(QStringLiteral("PRAGMA journal_mode=WAL")); });
    // The bulk writer's 16 MiB keeps a whole batch in memory until COMMIT instead of spilling
    // pages into the WAL mid-transaction, and fills to that bound as the database grows (the
    // app's largest memory). Contract v4 writes about 370 bytes per event, appended to the
    // right edge of each B-tree, so a 5,000-event batch dirties ~2 MiB; 64 MiB (contract v3)
    // only cost memory (bench/README.md). Any other connection would grow as far, so it
    // keeps a smaller one (the soak, bench/README.md).
    boundPageCache();
    db->run(QStringLiteral("PRAGMA temp_store=MEMORY"));
    db->run(QStringLiteral("PRAGMA synchronous=NORMAL"));
    // Debian builds SQLite with SECURE_DELETE on, so every deleted row was overwritten with
    // zeros: a quarter of a deep rollback's instructions (bench/README.md's history). The
    // file holds public chain data, which a deleted row's bytes left in a free page do not
    // make any more public, and SQLite's own default is off. (An environment's rpc_url, which
    // may carry a provider key, is kept in its live row anyway.)
    db->run(QStringLiteral("PRAGMA secure_delete=OFF"));
    db->run(QStringLiteral("PRAGMA foreign_keys=ON"));
    // SQLite silently falls back to read-only when the file cannot be written; say so now.
    if (sqlite3* h = db->sqliteHandle(); h && sqlite3_db_readonly(h, "main") == 1)
        throw StoreError(StoreError::Kind::ReadOnly,
                         QStringLiteral("database %1 is read-only; check the permissions of the "
                                        "file and its directory")
                             .arg(path));
    // Take and release the write lock once, so "locked" and "read-only" are reported at
    // open time with a clear message rather than at the first commit.
    db->retryWhileLocked([&] {
        db->beginWrite();
        db->rollback();
    });
    db->retryWhileLocked([&] { db->migrate(); });
    db->checkContractSurface();
    if (options.checkpointInBackground)
        if (sqlite3* h = db->sqliteHandle())
            db->m_checkpointer = std::make_unique<WalCheckpointer>(h, path);
    return db;
}

bool Database::reopenForReadOnlyPlace()
{
    sqlite3* h = sqliteHandle();
    if (!m_options.readOnly || !m_options.readInReadOnlyPlace ||
        m_readOnlyPlace != ReadOnlyPlace::No || !h)
        return false;
    // Which one depends on the place: EACCES on creating a file gives
    // SQLITE_READONLY_DIRECTORY, EROFS (a read-only mount) or a -wal whose -shm can be
    // neither opened nor created gives SQLITE_CANTOPEN. The file itself opened, and it is
    // SQLite (probeIsSqlite): only what lies beside it is out of reach.
    const int code = sqlite3_extended_errcode(h);
    if (code != SQLITE_READONLY_DIRECTORY && (code & 0xff) != SQLITE_CANTOPEN)
        return false;
    // stat(2) only: opening the -wal outside SQLite could drop SQLite's locks.
    const QFileInfo wal(m_path + QStringLiteral("-wal"));
    if (wal.exists() && wal.size() > 0) {
        try {
            reopenUri(QStringLiteral("mode=ro&vfs=unix-none"));
            if (sqlite3* reopened = sqliteHandle()) {
                // Without locks nothing may be copied back on close, even by mistake; in
                // exclusive mode SQLite keeps the WAL's index in memory, not in a -shm.
                sqlite3_db_config(reopened, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
                run(QStringLiteral("PRAGMA locking_mode=EXCLUSIVE"));
            }
            readSchemaVersion(); // the first read, which reads the WAL
            m_readOnlyPlace = ReadOnlyPlace::WalWithoutLocks;
            return true;
        } catch (const StoreError& e) {
            if (e.kind() == StoreError::Kind::Corrupt || e.kind() == StoreError::Kind::NotADatabase)
                throw;
            // Immutable below: the report says the WAL was not read.
        }
    }
    reopenUri(QStringLiteral("mode=ro&immutable=1"));
    m_readOnlyPlace = ReadOnlyPlace::Immutable;
    return true;
}

void Database::reopenUri(const QString& query)
{
    m_statements.clear();
    m_db.close();
    m_db.setDatabaseName(fileUri(m_path, query));
    if (!m_db.connectOptions().contains(QLatin1String("QSQLITE_OPEN_URI")))
        m_db.setConnectOptions(m_db.connectOptions() + QStringLiteral(";QSQLITE_OPEN_URI"));
    if (!m_db.open())
        throw errorFrom(m_db.lastError(), QStringLiteral("open %1").arg(query));
    if (sqlite3* reopened = sqliteHandle())
        registerSqlFunctions(reopened);
}

void Database::retryWhileLocked(const std::function<void()>& step)
{
    QDeadlineTimer deadline(m_options.busyTimeout);
    while (true) {
        try {
            step();
            return;
        } catch (const StoreError& e) {
            if (e.kind() != StoreError::Kind::Locked || deadline.hasExpired())
                throw;
            QThread::msleep(20);
        }
    }
}

int Database::backgroundCheckpoints() const
{
    return m_checkpointer ? m_checkpointer->checkpointsRun() : 0;
}

sqlite3* Database::sqliteHandle()
{
    const QVariant v = m_db.driver()->handle();
    if (v.isValid() && qstrcmp(v.typeName(), "sqlite3*") == 0)
        return *static_cast<sqlite3* const*>(v.data());
    return nullptr;
}

int Database::readSchemaVersion()
{
    QSqlQuery q = run(QStringLiteral(
        "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"));
    if (!q.next() || q.value(0).toInt() == 0)
        return 0;
    QSqlQuery v = run(QStringLiteral("SELECT MAX(version) FROM schema_version"));
    return v.next() ? v.value(0).toInt() : 0;
}

void Database::migrate()
{
    if (m_schemaVersion == 0) {
        WriteTransaction tx(*this);
        run(QStringLiteral("CREATE TABLE IF NOT EXISTS schema_version ("
                           " version INTEGER NOT NULL PRIMARY KEY,"
                           " description TEXT NOT NULL,"
                           " applied_at TEXT NOT NULL)"));
        tx.commit();
    }
    for (const Migration& m : migrations()) {
        if (m.version <= m_schemaVersion)
            continue;
        // Each step is atomic: a crash mid-migration leaves the previous version intact.
        WriteTransaction tx(*this);
        // Another process may have migrated while we waited for the lock.
        if (readSchemaVersion() >= m.version)
            continue;
        const auto refuse = [&](StoreError::Kind kind, const QString& why) {
            return StoreError(kind, QStringLiteral("cannot migrate the database to schema %1 (%2): "
                                                   "%3; it was left unchanged at schema %4")
                                        .arg(m.version)
                                        .arg(m.description, why)
                                        .arg(m_schemaVersion));
        };
        QString failedCheck;
        try {
            for (const QString& sql : m.statements)
                run(sql);
            for (const QString& sql : m.checks) {
                QSqlQuery q = run(sql);
                if (q.next() && !q.value(0).isNull()) {
                    failedCheck = q.value(0).toString();
                    break;
                }
            }
            if (failedCheck.isEmpty())
                for (const QString& sql : m.finalStatements)
                    run(sql);
        } catch (const StoreError& e) {
            // Disk full or locked stays what it is; a statement the data made fail is why.
            throw refuse(e.kind(), e.message());
        }
        if (!failedCheck.isEmpty())
            throw refuse(StoreError::Kind::Query, failedCheck);
        run(QStringLiteral("INSERT INTO schema_version (version, description, applied_at) "
                           "VALUES (?, ?, ?)"),
            {m.version, m.description, nowUtc()});
        tx.commit();
        m_schemaVersion = m.version;
    }
    m_schemaVersion = readSchemaVersion();
}

QSqlQuery& Database::prepared(const QString& sql)
{
    checkBeforeStatement();
    auto it = m_statements.find(sql);
    if (it == m_statements.end()) {
        QSqlQuery q(m_db);
        if (!q.prepare(sql))
            throw errorFrom(q.lastError(), sql.left(60));
        it = m_statements.insert(sql, q);
    }
    return *it;
}

void Database::exec(QSqlQuery& query, const QString& context)
{
    if (!query.exec())
        throw errorFrom(query.lastError(),
                        context.isEmpty() ? query.lastQuery().left(60) : context);
}

QSqlQuery Database::run(const QString& sql, const QVariantList& args)
{
    checkBeforeStatement();
    QSqlQuery q(m_db);
    q.setForwardOnly(true);
    if (!q.prepare(sql))
        throw errorFrom(q.lastError(), sql.left(60));
    for (qsizetype i = 0; i < args.size(); ++i)
        q.bindValue(int(i), args.at(i));
    exec(q, sql.left(60));
    return q;
}

QSqlQuery& Database::runCached(const QString& sql, const QVariantList& args)
{
    QSqlQuery& q = prepared(sql);
    for (qsizetype i = 0; i < args.size(); ++i)
        q.bindValue(int(i), args.at(i));
    exec(q, sql.left(60));
    return q;
}

void Database::beginWrite()
{
    refuseIfCorrupt();
    run(QStringLiteral("BEGIN IMMEDIATE"));
}

void Database::commit()
{
    // Corruption met anywhere in this transaction (even in a read whose loop just ended
    // early) means its writes may rest on wrong data: roll back instead.
    try {
        refuseIfCorrupt();
    } catch (const StoreError&) {
        rollback();
        throw;
    }
    run(QStringLiteral("COMMIT"));
}

bool Database::inTransaction()
{
    sqlite3* h = sqliteHandle();
    return h && sqlite3_get_autocommit(h) == 0;
}

void Database::rollback() noexcept
{
    QSqlQuery q(m_db);
    q.exec(QStringLiteral("ROLLBACK"));
}

} // namespace forkscope::store
