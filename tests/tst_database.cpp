// The SQLite store: migrations, reopen, and refusal of files it must not touch.
#include "DropFilePermissionOverride.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/Migrations.h"
#include "store/MultiRowInsert.h"
#include "store/WalCheckpointer.h"

#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QtTest>
#include <sqlite3.h>

using namespace forkscope;
using store::Database;
using store::StoreError;

namespace {
QByteArray fileDigest(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

QStringList tableNames(Database& db)
{
    // The contract's names: tables, or (contract v4) views over binary tables.
    QSqlQuery q =
        db.run("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name");
    QStringList names;
    while (q.next())
        names << q.value(0).toString();
    return names;
}

// Opens path expecting a StoreError of `kind`; returns its message.
QString expectRefusal(const QString& path, StoreError::Kind kind, Database::Options opts = {})
{
    try {
        Database::open(path, opts);
    } catch (const StoreError& e) {
        if (e.kind() != kind)
            return QStringLiteral("WRONG KIND: ") + e.message();
        return e.message();
    }
    return QStringLiteral("NOT REFUSED");
}
} // namespace

class TestDatabase : public QObject
{
    Q_OBJECT
private slots:
    void init() { QVERIFY(m_dir.isValid()); }
    void migratesFromEmpty();
    void reopenKeepsData();
    void emptyFileIsNewDatabase();
    void refusesNewerSchema();
    void refusesNonSqliteFiles_data();
    void refusesNonSqliteFiles();
    void refusesCorruptDatabase();
    void refusesLockedDatabase();
    void refusesReadOnlyFile();
    void missingDirectoryIsClearError();
    void postgresUrlIsNotTakenForAFile_data();
    void postgresUrlIsNotTakenForAFile();
    void transactionRollsBackOnException();
    void uniqueOutboxKey();
    void contractReaderGivesWhatQSqlQueryGives_data();
    void contractReaderGivesWhatQSqlQueryGives();
    void contractReaderThrowsOnAFailedStep();
    void multiRowInsertWritesEachRowInOrder_data();
    void multiRowInsertWritesEachRowInOrder();
    void backgroundCheckpointsKeepTheWalBounded();
    void pageCacheIsBoundedPerConnection_data();
    void pageCacheIsBoundedPerConnection();

private:
    QString path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)); }
    QTemporaryDir m_dir;
};

void TestDatabase::migratesFromEmpty()
{
    auto db = Database::open(path("fresh.sqlite"));
    QCOMPARE(db->schemaVersion(), store::latestSchemaVersion());
    const QStringList tables = tableNames(*db);
    for (const char* t :
         {"environments", "indexer_checkpoints", "blocks", "logs", "transfer_events",
          "token_balances", "outbox", "reorg_events", "backfill_ranges", "schema_version"})
        QVERIFY2(tables.contains(QLatin1String(t)), t);
    QSqlQuery mode = db->run("PRAGMA journal_mode");
    QVERIFY(mode.next());
    QCOMPARE(mode.value(0).toString(), QStringLiteral("wal"));
    // Every contract table carries environment_id and chain_id.
    for (const QString& t : tables) {
        // Not per environment: the version, and the shapes of ABI events' JSON (contract v4).
        if (t == "schema_version" || t == "args_templates")
            continue;
        QSqlQuery cols = db->run(QStringLiteral("PRAGMA table_info(%1)").arg(t));
        QStringList names;
        while (cols.next())
            names << cols.value(1).toString();
        QVERIFY2(names.contains("environment_id") && names.contains("chain_id"), qPrintable(t));
    }
}

void TestDatabase::reopenKeepsData()
{
    const QString p = path("reopen.sqlite");
    {
        auto db = Database::open(p);
        db->run("INSERT INTO environments VALUES (?, ?, ?, ?, ?, NULL)",
                {"lab-1", 31337, "0xabc", "http://127.0.0.1:8545", "2026-01-01T00:00:00Z"});
    }
    auto db = Database::open(p);
    QCOMPARE(db->schemaVersion(), store::latestSchemaVersion());
    QSqlQuery q = db->run("SELECT chain_id FROM environments WHERE environment_id = ?", {"lab-1"});
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 31337);
    QSqlQuery v = db->run("SELECT count(*) FROM schema_version");
    QVERIFY(v.next());
    QCOMPARE(v.value(0).toInt(), store::latestSchemaVersion()); // migrations ran once
}

void TestDatabase::emptyFileIsNewDatabase()
{
    const QString p = path("empty.sqlite");
    QFile f(p);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    auto db = Database::open(p);
    QCOMPARE(db->schemaVersion(), store::latestSchemaVersion());
}

void TestDatabase::refusesNewerSchema()
{
    const QString p = path("newer.sqlite");
    {
        auto db = Database::open(p);
        db->run("INSERT INTO schema_version VALUES (?, 'from the future', '2099-01-01')",
                {store::latestSchemaVersion() + 5});
        db->run("PRAGMA wal_checkpoint(TRUNCATE)");
    }
    const QByteArray before = fileDigest(p);
    const QString msg = expectRefusal(p, StoreError::Kind::NewerSchema);
    QVERIFY2(msg.contains(QString::number(store::latestSchemaVersion() + 5)), qPrintable(msg));
    QVERIFY2(msg.contains("upgrade Forkscope"), qPrintable(msg));
    QCOMPARE(fileDigest(p), before);
}

void TestDatabase::refusesNonSqliteFiles_data()
{
    // clang-format off
    QTest::addColumn<QByteArray>("content");
    QTest::newRow("text file") << QByteArray("this is my thesis, do not overwrite\n");
    QTest::newRow("json config") << QByteArray("{\"rpc\": \"http://localhost:8545\"}");
    QTest::newRow("binary junk") << QByteArray(4096, '\x7f');
    // clang-format on
}

void TestDatabase::refusesNonSqliteFiles()
{
    QFETCH(QByteArray, content);
    const QString p = path("notes.txt");
    QFile f(p);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(content);
    f.close();
    const QString msg = expectRefusal(p, StoreError::Kind::NotADatabase);
    QVERIFY2(msg.contains("not a SQLite database") && msg.contains(p), qPrintable(msg));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), content);
    QVERIFY(!QFile::exists(p + "-wal"));
    QVERIFY(!QFile::exists(p + "-journal"));
}

void TestDatabase::refusesCorruptDatabase()
{
    const QString p = path("corrupt.sqlite");
    QFile f(p);
    QVERIFY(f.open(QIODevice::WriteOnly));
    // A valid SQLite magic followed by garbage in the header and first page.
    QByteArray content("SQLite format 3\0", 16);
    content += QByteArray(4096 - 16, '\xa5');
    f.write(content);
    f.close();
    const QByteArray before = fileDigest(p);
    try {
        Database::open(p);
        QFAIL("opened a corrupt database");
    } catch (const StoreError& e) {
        QVERIFY2(e.kind() == StoreError::Kind::Corrupt ||
                     e.kind() == StoreError::Kind::NotADatabase,
                 qPrintable(e.message()));
        QVERIFY2(e.message().contains(p), qPrintable(e.message()));
    }
    QCOMPARE(fileDigest(p), before);
}

void TestDatabase::refusesLockedDatabase()
{
    const QString p = path("locked.sqlite");
    Database::open(p).reset(); // create it
    // Another connection (as another process would) holds the write lock.
    auto other = Database::open(p);
    other->beginWrite();
    other->run("INSERT INTO environments VALUES ('x', 1, '0x', 'u', 't', NULL)");
    Database::Options opts;
    opts.busyTimeout = std::chrono::milliseconds(200);
    const QString msg = expectRefusal(p, StoreError::Kind::Locked, opts);
    QVERIFY2(msg.contains("locked by another process") && msg.contains("200 ms"), qPrintable(msg));
    other->rollback();
    // Once released, it opens.
    QVERIFY(Database::open(p, opts));
}

void TestDatabase::refusesReadOnlyFile()
{
    const QString p = path("readonly.sqlite");
    Database::open(p).reset();
    QVERIFY(QFile::setPermissions(p, QFileDevice::ReadOwner | QFileDevice::ReadGroup |
                                         QFileDevice::ReadOther));
    const QByteArray before = fileDigest(p);
    {
        test::DropFilePermissionOverride asUser;
        const QString msg = expectRefusal(p, StoreError::Kind::ReadOnly);
        QVERIFY2(msg.contains("read-only") && msg.contains(p), qPrintable(msg));
        // Asking for read-only access explicitly works, for viewing an archive.
        Database::Options ro;
        ro.readOnly = true;
        auto db = Database::open(p, ro);
        QVERIFY(tableNames(*db).contains("blocks"));
    }
    QCOMPARE(fileDigest(p), before);
}

void TestDatabase::postgresUrlIsNotTakenForAFile_data()
{
    QTest::addColumn<QString>("url");
    QTest::newRow("postgresql") << "postgresql://postgres@127.0.0.1:5432/forkscope";
    QTest::newRow("postgres, upper case, with a password")
        << "POSTGRES://team:secret@db.example:5432/index";
}

void TestDatabase::postgresUrlIsNotTakenForAFile()
{
    QFETCH(QString, url);
    const QString msg = expectRefusal(url, StoreError::Kind::Unsupported);
    QVERIFY2(msg.contains("this reads and writes SQLite only") && msg.contains("pg-lab") &&
                 msg.contains("`verify`") && !msg.contains("secret"),
             qPrintable(msg));
    QVERIFY(!QFileInfo::exists("postgresql:") && !QFileInfo::exists("POSTGRES:"));
}

void TestDatabase::missingDirectoryIsClearError()
{
    const QString p = path("no/such/dir/db.sqlite");
    const QString msg = expectRefusal(p, StoreError::Kind::Io);
    QVERIFY2(msg.contains("does not exist"), qPrintable(msg));
}

void TestDatabase::transactionRollsBackOnException()
{
    auto db = Database::open(path("tx.sqlite"));
    try {
        store::WriteTransaction tx(*db);
        db->run("INSERT INTO environments VALUES ('a', 1, '0x', 'u', 't', NULL)");
        db->run("INSERT INTO no_such_table VALUES (1)"); // throws
        tx.commit();
        QFAIL("no error");
    } catch (const StoreError& e) {
        QCOMPARE(e.kind(), StoreError::Kind::Query);
        QVERIFY(e.message().contains("no_such_table"));
    }
    QSqlQuery q = db->run("SELECT count(*) FROM environments");
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 0);
}

void TestDatabase::multiRowInsertWritesEachRowInOrder_data()
{
    QTest::addColumn<int>("rows");
    QTest::addColumn<bool>("grouped");
    QTest::newRow("none") << 0 << true;
    QTest::newRow("fewer than a statement") << 3 << true;
    QTest::newRow("one statement") << 4 << true;
    QTest::newRow("two statements and three") << 11 << true;
    QTest::newRow("row by row") << 11 << false;
}

void TestDatabase::multiRowInsertWritesEachRowInOrder()
{
    QFETCH(int, rows);
    QFETCH(bool, grouped);
    const QByteArray file = QByteArray("multirow-") + QTest::currentDataTag() + ".sqlite";
    auto db = Database::open(path(file.constData()));
    db->run("CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER UNIQUE, v TEXT, b BLOB)");
    db->run("INSERT INTO t (k, v) VALUES (5, 'stored before')");
    store::WriteTransaction tx(*db);
    store::MultiRowInsert ins(*db, "INSERT INTO t (k, v, b)", 3, "ON CONFLICT DO NOTHING", 4);
    // Row 5 is already there: its one change is missing from the count, not an error.
    ins.start(rows, grouped);
    int changed = 0;
    for (int i = 0; i < rows; ++i) {
        const int c = ins.add([&](store::RowBinder& row) {
            row.bind(1, std::int64_t(i));
            row.bind(2, QByteArray("row ") + QByteArray::number(i));
            if (i % 2)
                row.bindNull(3);
            else
                row.bindBlob(3, "\x01\x02", 2);
        });
        if (!grouped)
            QCOMPARE(c, i == 5 ? 0 : 1); // row by row: that row's own count
        changed += c;
    }
    ins.finish();
    tx.commit();
    QCOMPARE(changed, rows > 5 ? rows - 1 : rows);
    QSqlQuery q = db->run("SELECT k, v, b IS NULL, length(b) FROM t WHERE v <> 'stored before' "
                          "ORDER BY id");
    QList<int> order;
    while (q.next()) {
        const int k = q.value(0).toInt();
        order << k;
        QCOMPARE(q.value(1).toString(), QStringLiteral("row %1").arg(k));
        QCOMPARE(q.value(2).toBool(), k % 2 == 1);
        if (k % 2 == 0)
            QCOMPARE(q.value(3).toInt(), 2);
    }
    QList<int> expected;
    for (int i = 0; i < rows; ++i)
        if (i != 5)
            expected << i;
    QCOMPARE(order, expected);

    // Fewer rows than announced: a group bound but never run is refused, not dropped.
    if (grouped && rows >= 4) {
        store::WriteTransaction tx2(*db);
        ins.start(4, true);
        for (int i = 0; i < 3; ++i)
            ins.add([&](store::RowBinder& row) {
                row.bind(1, std::int64_t(100 + i));
                row.bindNull(2);
                row.bindNull(3);
            });
        QVERIFY_THROWS_EXCEPTION(StoreError, ins.finish());
    }
}

void TestDatabase::uniqueOutboxKey()
{
    auto db = Database::open(path("outbox.sqlite"));
    const QString sql = "INSERT INTO outbox (environment_id, chain_id, block_number, event_key, "
                        "payload) VALUES ('e', 31337, 5, 'k', '{}')";
    db->run(sql);
    QVERIFY_THROWS_EXCEPTION(StoreError, db->run(sql));
    // ...but the same key in another environment is a different row.
    db->run("INSERT INTO outbox (environment_id, chain_id, block_number, event_key, payload) "
            "VALUES ('e2', 31337, 5, 'k', '{}')");
    // Contract v4: the view takes delivery bookkeeping, never an edit of what is sent.
    db->run("UPDATE outbox SET attempts = 3, delivered_at = 'now' WHERE environment_id = 'e'");
    QSqlQuery q = db->run("SELECT attempts, delivered_at FROM outbox_store WHERE "
                          "environment_id = 'e'");
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 3);
    QCOMPARE(q.value(1).toString(), QStringLiteral("now"));
    try {
        db->run("UPDATE outbox SET payload = '{\"forged\":1}' WHERE environment_id = 'e'");
        QFAIL("the outbox view let a payload be edited");
    } catch (const StoreError& e) {
        QVERIFY2(e.message().contains("only delivered_at, attempts, last_error and failed_at"),
                 qPrintable(e.message()));
    }
}

void TestDatabase::contractReaderGivesWhatQSqlQueryGives_data()
{
    // The reader steps SQLite itself; every reader of the contract was written against
    // QSqlQuery's values, so each kind of column and parameter must come back the same.
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QVariantList>("args");
    QTest::newRow("integer") << "SELECT 9007199254740993" << QVariantList{};
    QTest::newRow("negative integer") << "SELECT -42" << QVariantList{};
    QTest::newRow("real") << "SELECT 1.5" << QVariantList{};
    QTest::newRow("text") << "SELECT '0xabc'" << QVariantList{};
    QTest::newRow("non-ASCII text") << "SELECT 'Zürich ✓'" << QVariantList{};
    QTest::newRow("empty text") << "SELECT ''" << QVariantList{};
    QTest::newRow("blob") << "SELECT x'00ff10'" << QVariantList{};
    QTest::newRow("null") << "SELECT NULL" << QVariantList{};
    QTest::newRow("bound text") << "SELECT ?, typeof(?)" << QVariantList{"env", "env"};
    QTest::newRow("bound integer")
        << "SELECT ?, typeof(?)" << QVariantList{qint64(31337), qint64(31337)};
    QTest::newRow("bound int") << "SELECT ? + 1" << QVariantList{int(7)};
    QTest::newRow("bound double") << "SELECT ?, typeof(?)" << QVariantList{2.25, 2.25};
    QTest::newRow("bound bytes") << "SELECT ?, typeof(?)"
                                 << QVariantList{QByteArray("\x01\x02"), QByteArray("\x01")};
    QTest::newRow("bound null") << "SELECT ? IS NULL, typeof(?)"
                                << QVariantList{QVariant(), QVariant()};
    QTest::newRow("bound bool") << "SELECT ?, typeof(?)" << QVariantList{true, false};
    QTest::newRow("bound non-ASCII") << "SELECT length(?)" << QVariantList{QStringLiteral("é✓")};
}

void TestDatabase::contractReaderGivesWhatQSqlQueryGives()
{
    QFETCH(QString, sql);
    QFETCH(QVariantList, args);
    auto db = Database::open(path("reader.sqlite"));
    store::SqliteContractReader reader(*db);
    const auto rows = reader.query(sql, args);
    QSqlQuery q = db->run(sql, args);
    QVERIFY(rows->next());
    QVERIFY(q.next());
    QCOMPARE(rows->columns(), q.record().count());
    for (int c = 0; c < rows->columns(); ++c) {
        const QVariant mine = rows->value(c);
        const QVariant theirs = q.value(c);
        QCOMPARE(mine.isNull(), theirs.isNull());
        if (!theirs.isNull())
            QCOMPARE(mine.typeId(), theirs.typeId());
        QCOMPARE(mine.toString(), theirs.toString());
        QCOMPARE(mine.toByteArray(), theirs.toByteArray());
    }
    QVERIFY(!rows->next());
    QVERIFY(!q.next());
}

void TestDatabase::contractReaderThrowsOnAFailedStep()
{
    // abs() of the smallest integer fails at the third row, after two good ones. The end
    // of the rows must not be what a failure looks like: a check that stops reading early
    // and says nothing would call the rows it did not read missing, or miss them.
    auto db = Database::open(path("failing.sqlite"));
    store::SqliteContractReader reader(*db);
    const auto rows = reader.query(
        QStringLiteral("SELECT abs(column1) FROM (VALUES (1), (2), (-9223372036854775807 - 1))"),
        {});
    QVERIFY(rows->next());
    QVERIFY(rows->next());
    try {
        rows->next();
        QFAIL("a failed step ended the rows silently");
    } catch (const StoreError& e) {
        QVERIFY2(e.message().contains(QLatin1String("integer overflow")), qPrintable(e.message()));
    }
    // A statement runs when it is asked, as QSqlQuery::exec runs it, not at its first row.
    reader.query(QStringLiteral("CREATE TABLE made (n INTEGER)"), {});
    reader.query(QStringLiteral("INSERT INTO made VALUES (1), (2)"), {});
    QCOMPARE(reader.scalar(QStringLiteral("SELECT count(*) FROM made"), {}), 2);
    // A statement SQLite cannot prepare is refused at once, naming SQLite's reason.
    try {
        reader.query(QStringLiteral("SELECT nothing FROM no_such_table"), {});
        QFAIL("a bad statement was accepted");
    } catch (const StoreError& e) {
        QVERIFY2(e.message().contains(QLatin1String("no_such_table")), qPrintable(e.message()));
    }
}

void TestDatabase::backgroundCheckpointsKeepTheWalBounded()
{
    const QString file = path("bulk.sqlite");
    auto db = Database::open(file, Database::Options::bulkWriter());
    db->run("CREATE TABLE scratch (n INTEGER PRIMARY KEY, payload BLOB NOT NULL)");
    // 60 commits of 1 MiB each: far past the 1,000-frame mark (16 MiB at 16 KiB pages)
    // that wakes the checkpointer, and past the mark where the writer finishes the job.
    QSqlQuery& ins = db->prepared("INSERT INTO scratch (n, payload) VALUES (?, ?)");
    qint64 walPeak = 0;
    for (int c = 0; c < 60; ++c) {
        store::WriteTransaction tx(*db);
        for (int r = 0; r < 16; ++r) {
            ins.bindValue(0, c * 16 + r);
            ins.bindValue(1, QByteArray(64 * 1024, char('a' + c % 26)));
            db->exec(ins);
        }
        tx.commit();
        walPeak = std::max(walPeak, QFileInfo(file + "-wal").size());
    }
    // The checkpoints ran on their own thread, and the WAL never outgrew the point where
    // the writer checkpoints inline (plus one transaction's frames).
    QTRY_VERIFY(db->backgroundCheckpoints() > 0);
    const qint64 frameBytes = 16384 + 24;
    QVERIFY2(walPeak <= (store::WalCheckpointer::inlineFrames + 100) * frameBytes,
             qPrintable(QString::number(walPeak)));
    // What was committed is what another connection reads.
    auto reader = Database::open(file);
    QSqlQuery q = reader->run("SELECT count(*), sum(length(payload)) FROM scratch");
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 960);
    QCOMPARE(q.value(1).toLongLong(), 960LL * 64 * 1024);
}

void TestDatabase::pageCacheIsBoundedPerConnection_data()
{
    QTest::addColumn<QString>("role");
    QTest::newRow("reader") << "reader";
    QTest::newRow("small writer") << "small writer";
    QTest::newRow("bulk writer") << "bulk writer";
}

// A connection's page cache stays with it while it is open: the app's readers, lab and
// health connections live as long as the window. Each must stop at its own bound however
// much of the database it reads (the soak).
void TestDatabase::pageCacheIsBoundedPerConnection()
{
    QFETCH(QString, role);
    const QString file = path("cache.sqlite");
    QFile::remove(file);
    QFile::remove(file + "-wal");
    QFile::remove(file + "-shm");
    // 8 MiB of rows: four times the small bound, well under the bulk writer's.
    const qint64 dataBytes = 8LL * 1024 * 1024;
    const auto fill = [&](Database& w) {
        w.run("CREATE TABLE scratch (n INTEGER PRIMARY KEY, payload BLOB NOT NULL)");
        w.run(QStringLiteral("WITH RECURSIVE i(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM i "
                             "WHERE n < %1) INSERT INTO scratch SELECT n, randomblob(1024) FROM i")
                  .arg(dataBytes / 1024));
    };
    Database::Options o =
        role == "bulk writer" ? Database::Options::bulkWriter() : Database::Options{};
    o.readOnly = role == "reader";
    QCOMPARE(o.cacheKiB, role == "bulk writer" ? 16 * 1024 : 2 * 1024);
    if (o.readOnly)
        fill(*Database::open(file));
    // A writer creates the file: its page size changes after the open (4 KiB to 16 KiB), and
    // the bound must be in bytes at the final page size, not four times as many.
    auto db = Database::open(file, o);
    if (!o.readOnly)
        fill(*db);
    // Every page of the table read, twice.
    for (int pass = 0; pass < 2; ++pass) {
        QSqlQuery q = db->run("SELECT count(*), sum(length(payload)) FROM scratch");
        QVERIFY(q.next());
        QCOMPARE(q.value(1).toLongLong(), dataBytes);
    }
    int used = 0, highWater = 0;
    QCOMPARE(
        sqlite3_db_status(db->sqliteHandle(), SQLITE_DBSTATUS_CACHE_USED, &used, &highWater, 0),
        SQLITE_OK);
    const qint64 bound = qint64(o.cacheKiB) * 1024;
    // Pages plus SQLite's per-page headers (~2% at 16 KiB pages).
    QVERIFY2(used <= bound * 11 / 10, qPrintable(QStringLiteral("%1 > %2").arg(used).arg(bound)));
    // The scan went through the cache, up to the bound or the whole table.
    QVERIFY2(used >= std::min(bound, dataBytes) * 9 / 10,
             qPrintable(QStringLiteral("%1 of %2").arg(used).arg(bound)));
}

QTEST_GUILESS_MAIN(TestDatabase)
#include "tst_database.moc"
