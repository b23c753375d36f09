// The SQLite file is shared with other processes (sqlite3, a second forkscope, a report)
// and must stay SQLite's alone: no raw open()/close() of it (POSIX locks belong to the
// process), and a damaged file is never written to.
#include "IndexerLab.h"
#include "store/Database.h"

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

class TestStoreSafety : public QObject
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
};

void TestStoreSafety::initTestCase()
{
    QVERIFY2(!sqlite3Binary().isEmpty(),
             "the sqlite3 command line tool is needed (bash packaging/bootstrap.sh installs it)");
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

QTEST_GUILESS_MAIN(TestStoreSafety)
#include "tst_storesafety.moc"
