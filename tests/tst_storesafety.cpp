// The SQLite file is shared with other processes (sqlite3, a second forkscope, a report)
// and must stay SQLite's alone: no raw open()/close() of it (POSIX locks belong to the
// process), and a damaged file is never written to. The contract's views and triggers, which
// anyone with sqlite3 or psql can drop or replace, are checked at every open on either store.
#include "BackendLab.h"
#include "FactoryChain.h"
#include "IndexerLab.h"
#include "store/Database.h"
#include "store/pg/PgContract.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QtTest>
#include <csignal>

using namespace forkscope;
using store::Database;
using store::StoreError;
using test::IndexerLab;
using test::ProcessRun;

namespace {

QString sqlite3Binary()
{
    return QStandardPaths::findExecutable(QStringLiteral("sqlite3"));
}

// What another process sees: `sqlite3 FILE SQL`, its stdout trimmed.
QString otherProcess(const QString& path, const QString& sql)
{
    QProcess p;
    p.start(sqlite3Binary(), {path, sql});
    if (!p.waitForFinished(20000))
        return QStringLiteral("(sqlite3 did not finish)");
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed() +
           QString::fromUtf8(p.readAllStandardError()).trimmed();
}

// The process's open files that are a database's -wal or -shm unlinked under it: what a
// second process does once it finds the file unlocked.
QStringList deletedWalFiles(qint64 pid)
{
    QStringList out;
    const QDir fds(QStringLiteral("/proc/%1/fd").arg(pid));
    for (const QString& fd : fds.entryList(QDir::NoDotAndDotDot | QDir::System | QDir::Files)) {
        const QString target = QFile::symLinkTarget(fds.filePath(fd));
        if ((target.contains(QLatin1String("-wal")) || target.contains(QLatin1String("-shm"))) &&
            target.endsWith(QLatin1String("(deleted)")))
            out << target;
    }
    return out;
}

QByteArray fileDigest(const QString& path)
{
    QProcess p; // sha256sum in its own process: this test process must not open the file
    p.start(QStringLiteral("sha256sum"), {path});
    p.waitForFinished(20000);
    return p.readAllStandardOutput().left(64);
}

// Overwrites `bytes` bytes at `offset` in another process (dd), so this process never
// holds a descriptor of a database file.
void overwrite(const QString& path, qint64 offset, const QByteArray& bytes, const QString& scratch)
{
    QFile junk(scratch);
    QVERIFY(junk.open(QIODevice::WriteOnly | QIODevice::Truncate));
    junk.write(bytes);
    junk.close();
    QProcess dd;
    dd.start(QStringLiteral("dd"), {QStringLiteral("if=") + scratch, QStringLiteral("of=") + path,
                                    QStringLiteral("bs=1"), QStringLiteral("seek=%1").arg(offset),
                                    QStringLiteral("conv=notrunc"), QStringLiteral("status=none")});
    QVERIFY(dd.waitForFinished(60000));
    QCOMPARE(dd.exitCode(), 0);
}

qint64 fileSize(const QString& path)
{
    return QFileInfo(path).size(); // stat(2): no descriptor
}

} // namespace

class TestStoreSafety : public QObject, public test::BackendLab
{
    Q_OBJECT
private slots:
    void initTestCase();
    void secondConnectionKeepsTheProcessLocks();
    void indexerSharesItsFileWithOtherProcesses();
    void corruptFileIsNeverWritten_data();
    void corruptFileIsNeverWritten();
    void corruptionFoundAtRunTimeStopsWrites();
    void otherFilesAreNeverTheDatabase_data();
    void otherFilesAreNeverTheDatabase();
    void aDroppedOrAlteredViewOrTriggerIsRestored_data();
    void aDroppedOrAlteredViewOrTriggerIsRestored();
    void theCommandsSayWhatWasRestoredOrWhatToRun_data() { backends(); }
    void theCommandsSayWhatWasRestoredOrWhatToRun();
    void aTableInAViewsPlaceIsNeverDropped_data() { backends(); }
    void aTableInAViewsPlaceIsNeverDropped();

private:
    // The lab chain indexed into both stores (environment "surface"), with a reorg so that
    // every view has rows.
    void indexSurfaceLab();
    // `forkscope index` of the surface environment: the lab's tokens and a factory's child,
    // so that factory_children has rows too.
    QStringList surfaceArgs(const QString& db) const
    {
        return indexArgs(db, QStringLiteral("surface")) +
               QStringList{QStringLiteral("--factory"),       m_factory->factory().toHex(),
                           QStringLiteral("--factory-event"), test::kPairCreated,
                           QStringLiteral("--child-arg"),     QStringLiteral("pair")};
    }
    std::unique_ptr<test::FactoryChain> m_factory;
    static QStringList schemaOf(const QString& db);
    static QStringList viewNames(const QString& db);
    static QStringList rowsOfEveryView(const QString& db);
    static void tamper(const QString& db, const QString& kind, const QString& name,
                       const QString& how);
    static QString readOnlyOpenRefusal(const QString& db);
    static QString writableOpen(const QString& db);
};

void TestStoreSafety::initTestCase()
{
    QVERIFY2(!sqlite3Binary().isEmpty(),
             "the sqlite3 command line tool is needed (bash packaging/bootstrap.sh installs it)");
    startLab();
    m_factory = std::make_unique<test::FactoryChain>(*m_lab);
    QRandomGenerator random(7);
    m_factory->block(1, 0, random);
    m_lab->sprayAll(2, 3, 10); // Transfers for the surface lab's reorg to take, above the child
    indexSurfaceLab();
}

void TestStoreSafety::secondConnectionKeepsTheProcessLocks()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("locks.sqlite"));
    auto writer = Database::open(path);
    writer->run(QStringLiteral("CREATE TABLE t (x INTEGER)"));
    writer->run(QStringLiteral("INSERT INTO t VALUES (1)"));
    // The second (and third) connection of this process to the same file: the old header
    // check read the file with QFile and closed it, dropping every lock of `writer`.
    auto reader = Database::open(path, Database::Options{true});
    auto another = Database::open(path);
    // Another process comes and goes. Finding no lock, it believed itself the last user and
    // deleted the -wal and -shm under us.
    for (int i = 0; i < 5; ++i)
        QCOMPARE(otherProcess(path, QStringLiteral("SELECT count(*) FROM t")), QStringLiteral("1"));
    QVERIFY2(deletedWalFiles(QCoreApplication::applicationPid()).isEmpty(),
             qPrintable(deletedWalFiles(QCoreApplication::applicationPid()).join(", ")));
    // Our later commits are what the other process sees.
    writer->run(QStringLiteral("INSERT INTO t VALUES (2)"));
    writer->run(QStringLiteral("INSERT INTO t VALUES (3)"));
    QCOMPARE(otherProcess(path, QStringLiteral("SELECT count(*) FROM t")), QStringLiteral("3"));
}

void TestStoreSafety::indexerSharesItsFileWithOtherProcesses()
{
    // `forkscope index` following the head with node health on (a second connection to the
    // file), while `sqlite3` reads it five times: the indexer keeps its -wal and -shm, the
    // reader sees every commit, and a kill -9 afterwards loses nothing.
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(4, 3, 5);
    QProcess indexer;
    indexer.start(QStringLiteral(FORKSCOPE_BINARY),
                  lab.indexArgs("env", {"--poll-ms", "100", "--node", lab.devnet().url().toString(),
                                        "--check-interval-ms", "100"}));
    QVERIFY(indexer.waitForStarted());
    const QString checkpointSql =
        QStringLiteral("SELECT block_number FROM indexer_checkpoints WHERE environment_id='env'");
    const auto head = [&] { return QString::number(lab.eth().blockNumber()); };
    QTRY_COMPARE_WITH_TIMEOUT(otherProcess(lab.dbPath(), checkpointSql), head(), 30000);
    QTest::qWait(500); // the health monitor's connection is open by now
    for (int i = 0; i < 5; ++i)
        QVERIFY(
            !otherProcess(lab.dbPath(), QStringLiteral("SELECT count(*) FROM blocks")).isEmpty());
    QVERIFY2(deletedWalFiles(indexer.processId()).isEmpty(),
             qPrintable(deletedWalFiles(indexer.processId()).join(", ")));
    // New commits reach the other process (before the fix it kept reading a stale file).
    for (int round = 0; round < 3; ++round) {
        lab.sprayAll(2, 3, 5);
        QTRY_COMPARE_WITH_TIMEOUT(otherProcess(lab.dbPath(), checkpointSql), head(), 10000);
    }
    QVERIFY(deletedWalFiles(indexer.processId()).isEmpty());
    const QString before = otherProcess(lab.dbPath(), checkpointSql);
    ::kill(pid_t(indexer.processId()), SIGKILL);
    indexer.waitForFinished(10000);
    QCOMPARE(otherProcess(lab.dbPath(), checkpointSql), before);
    const QStringList problems = lab.verify("env");
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TestStoreSafety::corruptFileIsNeverWritten_data()
{
    QTest::addColumn<quint32>("seed");
    for (quint32 seed = 1; seed <= 12; ++seed)
        QTest::addRow("seed %u", seed) << seed;
}

void TestStoreSafety::corruptFileIsNeverWritten()
{
    // 4 KiB of random bytes somewhere in the middle of a valid database. Whenever SQLite's
    // own integrity_check (run by another process) calls the file damaged, `forkscope index`
    // must refuse it with one line and leave it byte for byte as it was.
    QFETCH(quint32, seed);
    static std::unique_ptr<IndexerLab> lab; // one synced database, copied per case
    static QString pristine;
    if (!lab) {
        lab = std::make_unique<IndexerLab>();
        lab->deployToken("AAA");
        lab->sprayAll(60, 10, 40);
        VERIFY_EXIT_OK(lab->runIndex("env", {"--exit-when-synced"}));
        pristine = lab->tempPath(QStringLiteral("pristine.sqlite"));
        QCOMPARE(otherProcess(lab->dbPath(),
                              QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE); VACUUM INTO '") +
                                  pristine + QStringLiteral("'")),
                 QStringLiteral("0|0|0"));
        lab->mine(3); // the node has blocks the copies do not: indexing would append them
    }
    const QString copy = lab->tempPath(QStringLiteral("corrupt-%1.sqlite").arg(seed));
    QVERIFY(QFile::copy(pristine, copy));
    QRandomGenerator rng(seed);
    const qint64 size = fileSize(copy);
    const qint64 offset = (size / 4 + rng.bounded(size / 2)) & ~qint64(4095);
    QByteArray junk(4096, Qt::Uninitialized);
    rng.fillRange(reinterpret_cast<quint32*>(junk.data()), junk.size() / 4);
    overwrite(copy, offset, junk, lab->tempPath(QStringLiteral("junk")));
    const QString verdict = otherProcess(copy, QStringLiteral("PRAGMA integrity_check"));
    const QByteArray digest = fileDigest(copy);
    QStringList args = lab->indexArgs("env", {"--exit-when-synced"});
    args[args.indexOf("--db") + 1] = copy;
    const ProcessRun run =
        test::runForkscope(args, QProcessEnvironment::systemEnvironment(), 60000);
    if (verdict == QLatin1String("ok")) {
        // The bytes landed where no check can see them (free space, or inside a value):
        // nothing to refuse. Counted, so a run shows how often that happens.
        qInfo("seed %u: offset %lld is not detectably corrupt (integrity_check: ok)", seed, offset);
        return;
    }
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    const QStringList lines = run.err.trimmed().split('\n');
    QVERIFY2(lines.size() == 1, qPrintable(run.err));
    QVERIFY2(lines[0].startsWith("forkscope: ") && lines[0].contains("corrupt"),
             qPrintable(run.err));
    QVERIFY2(!run.out.contains("synced"), qPrintable(run.out));
    QCOMPARE(fileDigest(copy), digest);
    QVERIFY(!QFileInfo::exists(copy + QStringLiteral("-wal")) ||
            fileSize(copy + QStringLiteral("-wal")) == 0);
}

void TestStoreSafety::corruptionFoundAtRunTimeStopsWrites()
{
    // The file passed its check at open and is damaged afterwards (a disk, another program):
    // the first read that meets the damage, even one whose row loop just stops early,
    // stops every write of this process to that file.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("later.sqlite"));
    auto writer = Database::open(path);
    writer->run(QStringLiteral("CREATE TABLE t (x INTEGER PRIMARY KEY, v TEXT)"));
    {
        store::WriteTransaction tx(*writer);
        for (int i = 0; i < 20000; ++i)
            writer->run(QStringLiteral("INSERT INTO t (v) VALUES (?)"),
                        {QString(200, QChar(u'a' + i % 26))});
        tx.commit();
    }
    writer->run(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
    const QByteArray before = fileDigest(path);
    // Garbage over a page deep inside the table's b-tree.
    QByteArray junk(16384, '\x5a');
    overwrite(path, (fileSize(path) / 2) & ~qint64(16383), junk, dir.filePath("junk"));
    const QByteArray damaged = fileDigest(path);
    QVERIFY(damaged != before);

    // A fresh connection (so no page comes from a cache) reads the table; Qt ends the loop
    // quietly at the damaged page.
    auto reader = Database::open(path); // checked once per process already: no quick_check
    try {
        QSqlQuery q = reader->run(QStringLiteral("SELECT v FROM t"));
        while (q.next()) {
        }
    } catch (const StoreError& e) {
        QCOMPARE(e.kind(), StoreError::Kind::Corrupt); // the read itself may say so, too
    }
    try {
        writer->run(QStringLiteral("INSERT INTO t (v) VALUES ('x')"));
        store::WriteTransaction tx(*writer);
        writer->run(QStringLiteral("INSERT INTO t (v) VALUES ('y')"));
        tx.commit();
        QFAIL("a write went through after SQLite reported the file corrupt");
    } catch (const StoreError& e) {
        QCOMPARE(e.kind(), StoreError::Kind::Corrupt);
        QVERIFY2(e.message().contains("corrupt") && e.message().contains(path),
                 qPrintable(e.message()));
    }
    writer.reset();
    reader.reset();
    QCOMPARE(fileDigest(path), damaged);
}

void TestStoreSafety::otherFilesAreNeverTheDatabase_data()
{
    // Files Forkscope opens next to the database: a raw open/close of the database drops the
    // process's locks, and writing it destroys it.
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("named");
    const QStringList index{"index", "--rpc",      "http://127.0.0.1:1",
                            "--db",  "DB",         "--env",
                            "e",     "--contract", "0x5fbdb2315678afecb367f032d93f642f64180aa3"};
    QTest::newRow("index --abi") << (index + QStringList{"--abi", "DB"}) << "--abi";
    QTest::newRow("index --outbox-file -wal")
        << (index + QStringList{"--outbox-file", "DB-wal"}) << "--outbox-file";
    QTest::newRow("index --outbox-file via a symlink")
        << (index + QStringList{"--outbox-file", "LINK"}) << "--outbox-file";
    QTest::newRow("report --out") << QStringList{"report", "--db",  "DB", "--format",
                                                 "json",   "--out", "DB"}
                                  << "--out";
}

void TestStoreSafety::otherFilesAreNeverTheDatabase()
{
    QFETCH(QStringList, args);
    QFETCH(QString, named);
    QTemporaryDir dir;
    const QString db = dir.filePath(QStringLiteral("x.sqlite"));
    Database::open(db)->run(QStringLiteral("CREATE TABLE keep (x)"));
    QVERIFY(QFile::link(db, dir.filePath(QStringLiteral("link"))));
    for (QString& a : args)
        a.replace(QStringLiteral("DB"), db)
            .replace(QStringLiteral("LINK"), dir.filePath(QStringLiteral("link")));
    const QByteArray before = fileDigest(db);
    const ProcessRun run = test::runForkscope(args);
    VERIFY_ONE_ERROR_LINE(run, 2, (QStringList{named, QStringLiteral("is the database")}));
    QCOMPARE(fileDigest(db), before);
}

void TestStoreSafety::indexSurfaceLab()
{
    const QString sqlite = m_lab->tempPath(QStringLiteral("backends.sqlite"));
    // The second token is added by the next run, so that contract_sources and source_ranges
    // have rows too.
    const QString added = m_lab->contracts().last().toHex();
    for (const QString& db : {sqlite, m_cluster.url()}) {
        QStringList first = surfaceArgs(db);
        first.remove(first.indexOf(added) - 1, 2);
        VERIFY_EXIT_OK(
            test::runForkscope(first + QStringList{QStringLiteral("--exit-when-synced")}));
    }
    // Blocks past the old head too: a shared backfill notices the reorg below its target.
    m_lab->reorg(2);
    m_lab->mine(3);
    for (const QString& db : {sqlite, m_cluster.url()}) {
        VERIFY_EXIT_OK(test::runForkscope(surfaceArgs(db) +
                                          QStringList{QStringLiteral("--exit-when-synced")}));
        const QStringList rows = rowsOfEveryView(db);
        for (const QString& view : viewNames(db))
            QVERIFY2(!rows.filter(QRegularExpression(QStringLiteral("^%1:").arg(view))).isEmpty(),
                     qPrintable(QStringLiteral("%1 has no rows in %2").arg(view, db)));
    }
}

// Every view's (and on SQLite every trigger's) definition as the database keeps it, read
// without Forkscope's open: by `sqlite3`, or from pg_views.
QStringList TestStoreSafety::schemaOf(const QString& db)
{
    if (!store::pg::isPostgresUrl(db))
        return otherProcess(db, QStringLiteral("SELECT type || ' ' || name || ': ' || sql FROM "
                                               "sqlite_master WHERE type IN ('view', 'trigger') "
                                               "ORDER BY type, name"))
            .split(QLatin1Char('\n'));
    auto pg = store::pg::PgConnection::open(db);
    const store::pg::PgResult r = pg->exec("SELECT 'view ' || viewname || ': ' || definition FROM "
                                           "pg_views WHERE schemaname = current_schema() ORDER "
                                           "BY viewname");
    QStringList out;
    for (int i = 0; i < r.rows(); ++i)
        out << QString::fromUtf8(r.text(i, 0));
    return out;
}

QStringList TestStoreSafety::viewNames(const QString& db)
{
    QStringList names;
    for (const QString& line : schemaOf(db))
        if (line.startsWith(QLatin1String("view ")))
            names << line.mid(5, line.indexOf(QLatin1Char(':')) - 5);
    return names;
}

// Every row of every view, as text, sorted: what a reader sees.
QStringList TestStoreSafety::rowsOfEveryView(const QString& db)
{
    test::Backend b(db);
    QStringList rows;
    for (const QString& view : viewNames(db)) {
        for (auto q = b.open().query(QStringLiteral("SELECT * FROM %1").arg(view), {});
             q->next();) {
            QStringList cells;
            for (int c = 0; c < q->columns(); ++c)
                cells << q->value(c).toString();
            rows << view + QStringLiteral(": ") + cells.join(QLatin1Char('|'));
        }
    }
    rows.sort();
    return rows;
}

// What a user does with sqlite3 or psql: drop the object, or replace it with another
// definition (a view that reads nothing, a trigger that does nothing).
void TestStoreSafety::tamper(const QString& db, const QString& kind, const QString& name,
                             const QString& how)
{
    const bool view = kind == QLatin1String("view");
    if (store::pg::isPostgresUrl(db)) {
        auto pg = store::pg::PgConnection::open(db);
        QString sql = QStringLiteral("DROP VIEW %1").arg(name);
        if (how == QLatin1String("altered")) {
            QString def = QString::fromUtf8(
                pg->run("t_def", "SELECT pg_get_viewdef(to_regclass($1))", {name.toUtf8()})
                    .text(0, 0));
            def = def.trimmed();
            if (def.endsWith(QLatin1Char(';')))
                def.chop(1);
            sql = QStringLiteral("CREATE OR REPLACE VIEW %1 AS SELECT * FROM (%2) v LIMIT 0")
                      .arg(name, def);
        }
        pg->exec(sql.toUtf8().constData());
        return;
    }
    QString sql = QStringLiteral("DROP %1 %2;").arg(view ? "VIEW" : "TRIGGER", name);
    if (how == QLatin1String("altered")) {
        const QString original = otherProcess(
            db, QStringLiteral("SELECT sql FROM sqlite_master WHERE name = '%1'").arg(name));
        if (view) {
            sql += QStringLiteral(" CREATE VIEW %1 AS SELECT * FROM (%2) LIMIT 0;")
                       .arg(name, original.mid(original.indexOf(QLatin1String(" AS ")) + 4));
        } else {
            const auto m =
                QRegularExpression(QStringLiteral("INSTEAD OF (\\w+) ON (\\w+)")).match(original);
            QVERIFY2(m.hasMatch(), qPrintable(original));
            sql += QStringLiteral(" CREATE TRIGGER %1 INSTEAD OF %2 ON %3 BEGIN SELECT 1; END;")
                       .arg(name, m.captured(1), m.captured(2));
        }
    }
    QCOMPARE(otherProcess(db, sql), QString());
}

QString TestStoreSafety::readOnlyOpenRefusal(const QString& db)
{
    try {
        if (store::pg::isPostgresUrl(db)) {
            store::pg::requireCurrentPgContract(*store::pg::PgConnection::open(db));
        } else {
            Database::Options ro;
            ro.readOnly = true;
            Database::open(db, ro);
        }
    } catch (const StoreError& e) {
        return e.kind() == StoreError::Kind::ReadOnly
                   ? e.message()
                   : QStringLiteral("WRONG KIND: ") + e.message();
    }
    return QStringLiteral("NOT REFUSED");
}

// What a writable open said it restored.
QString TestStoreSafety::writableOpen(const QString& db)
{
    if (store::pg::isPostgresUrl(db))
        return store::pg::ensurePgContract(*store::pg::PgConnection::open(db));
    return Database::open(db)->restoredSurface();
}

void TestStoreSafety::aDroppedOrAlteredViewOrTriggerIsRestored_data()
{
    // Every view and trigger each store has, from its own schema (not from the list the
    // check uses), dropped and altered in turn.
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("how");
    const QString sqlite = m_lab->tempPath(QStringLiteral("backends.sqlite"));
    for (const QString& db : {sqlite, m_cluster.url()}) {
        const QStringList schema = schemaOf(db);
        QVERIFY(schema.size() >= 6);
        for (const QString& line : schema) {
            const QString kind = line.section(QLatin1Char(' '), 0, 0);
            const QString name = line.section(QLatin1Char(' '), 1, 1).chopped(1);
            for (const char* how : {"dropped", "altered"})
                QTest::addRow("%s, %s %s %s",
                              store::pg::isPostgresUrl(db) ? "postgresql" : "sqlite",
                              qPrintable(kind), qPrintable(name), how)
                    << db << kind << name << QString::fromLatin1(how);
        }
    }
}

void TestStoreSafety::aDroppedOrAlteredViewOrTriggerIsRestored()
{
    QFETCH(QString, db);
    QFETCH(QString, kind);
    QFETCH(QString, name);
    QFETCH(QString, how);
    const QStringList schemaBefore = schemaOf(db);
    const QStringList rowsBefore = rowsOfEveryView(db);
    tamper(db, kind, name, how);
    QVERIFY(schemaOf(db) != schemaBefore);

    // A read-only open cannot restore it: one line naming it and what to run.
    const QString refusal = readOnlyOpenRefusal(db);
    QVERIFY2(refusal.contains(QStringLiteral("%1 %2 (").arg(kind, name)) &&
                 refusal.contains(QLatin1String("forkscope index --db ")) &&
                 !refusal.contains(QLatin1Char('\n')),
             qPrintable(refusal));
    QVERIFY(schemaOf(db) != schemaBefore); // and changed nothing

    // A writable open restores it, says so, and every view reads what it read before.
    const QString restored = writableOpen(db);
    const QString state = how == QLatin1String("dropped") ? QStringLiteral("missing")
                                                          : QStringLiteral("defined otherwise");
    QVERIFY2(restored.contains(QStringLiteral("restored the contract's")) &&
                 restored.contains(QStringLiteral("%1 %2 (%3)").arg(kind, name, state)),
             qPrintable(restored));
    QCOMPARE(schemaOf(db), schemaBefore);
    QCOMPARE(rowsOfEveryView(db), rowsBefore);
    QCOMPARE(writableOpen(db), QString()); // nothing left to restore
    QCOMPARE(readOnlyOpenRefusal(db), QStringLiteral("NOT REFUSED"));
}

void TestStoreSafety::theCommandsSayWhatWasRestoredOrWhatToRun()
{
    // The torture run's case: `drop view transfer_events`, then the commands.
    QFETCH(QString, db);
    const QStringList schemaBefore = schemaOf(db);
    tamper(db, QStringLiteral("view"), QStringLiteral("transfer_events"),
           QStringLiteral("dropped"));
    const QString out = m_lab->tempPath(QStringLiteral("surface.json"));
    const QStringList report{
        QStringLiteral("report"), QStringLiteral("--db"),  db,  QStringLiteral("--format"),
        QStringLiteral("json"),   QStringLiteral("--out"), out, QStringLiteral("--no-verify")};
    VERIFY_ONE_ERROR_LINE(test::runForkscope(report), 1,
                          QStringList({"view transfer_events (missing)", "forkscope index --db"}));
    VERIFY_ONE_ERROR_LINE(test::runForkscope(verifyArgs(db, QStringLiteral("surface"))), 1,
                          QStringList({"view transfer_events (missing)", "forkscope index --db"}));

    const test::ProcessRun index =
        test::runForkscope(surfaceArgs(db) + QStringList{QStringLiteral("--exit-when-synced")});
    VERIFY_EXIT_OK(index);
    const QStringList lines = index.err.trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines[0].startsWith(QLatin1String("forkscope: warning: database ")) &&
                 lines[0].contains(QLatin1String("restored the contract's view transfer_events "
                                                 "(missing)")),
             qPrintable(index.err));
    QCOMPARE(schemaOf(db), schemaBefore);
    VERIFY_EXIT_OK(test::runForkscope(report));
}

void TestStoreSafety::aTableInAViewsPlaceIsNeverDropped()
{
    // A table under a view's name holds someone's rows: the open refuses instead of
    // dropping it, and restores the view once the name is free.
    QFETCH(QString, db);
    const QStringList schemaBefore = schemaOf(db);
    const auto run = [&](const char* sql) {
        if (store::pg::isPostgresUrl(db))
            store::pg::PgConnection::open(db)->exec(sql);
        else
            QCOMPARE(otherProcess(db, QString::fromLatin1(sql)), QString());
    };
    run("DROP VIEW token_balances; CREATE TABLE token_balances (note text); INSERT INTO "
        "token_balances VALUES ('mine')");
    for (bool readOnly : {false, true}) {
        QString refusal;
        try {
            if (readOnly)
                refusal = readOnlyOpenRefusal(db);
            else
                writableOpen(db);
        } catch (const StoreError& e) {
            refusal = e.message();
        }
        QVERIFY2(refusal.contains(QLatin1String("view token_balances is missing and a table holds "
                                                "its name")),
                 qPrintable(refusal));
    }
    const QString note = store::pg::isPostgresUrl(db)
                             ? QString::fromUtf8(store::pg::PgConnection::open(db)
                                                     ->exec("SELECT note FROM token_balances")
                                                     .text(0, 0))
                             : otherProcess(db, QStringLiteral("SELECT note FROM token_balances"));
    QCOMPARE(note, QStringLiteral("mine"));
    run("DROP TABLE token_balances");
    QVERIFY(writableOpen(db).contains(QLatin1String("view token_balances (missing)")));
    QCOMPARE(schemaOf(db), schemaBefore);
}

QTEST_GUILESS_MAIN(TestStoreSafety)
#include "tst_storesafety.moc"
