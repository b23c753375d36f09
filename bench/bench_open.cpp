// What opening a database for writing costs, PRAGMA quick_check included (Database::open
// runs it once per file and process before the first write).
//
//   forkscope_bench_open --db FILE [--grow-to-mb N] [--drop-caches]
//
// --grow-to-mb copies every environment's rows under new environment ids (in one
// transaction per copy) until the file reaches N MiB: a large file of the real schema from a
// synced one (e.g. the database forkscope_bench_index leaves). --drop-caches asks the kernel
// to drop its page cache before each measurement (root, and a kernel that allows it), so
// the figure includes reading the file from disk.
#include "store/Database.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSqlQuery>
#include <QStringList>
#include <cstdio>
#include <sqlite3.h>
#include <unistd.h>

using namespace forkscope;

namespace {

bool dropCaches()
{
    ::sync();
    QFile f(QStringLiteral("/proc/sys/vm/drop_caches"));
    if (!f.open(QIODevice::WriteOnly))
        return false;
    return f.write("3\n") == 2;
}

double mib(qint64 bytes)
{
    return double(bytes) / (1024.0 * 1024.0);
}

// quick_check alone, on a read-only connection of its own.
double timeQuickCheck(const QString& path, QString* verdict)
{
    sqlite3* db = nullptr;
    sqlite3_open_v2(QFile::encodeName(path).constData(), &db, SQLITE_OPEN_READONLY, nullptr);
    QElapsedTimer t;
    t.start();
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW)
        *verdict = QString::fromUtf8(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    const double ms = double(t.nsecsElapsed()) / 1e6;
    sqlite3_close(db);
    return ms;
}

void grow(const QString& path, qint64 targetBytes)
{
    auto db = store::Database::open(path);
    QStringList tables;
    {
        QSqlQuery q = db->run(QStringLiteral(
            "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND EXISTS (SELECT 1 "
            "FROM pragma_table_info(m.name) p WHERE p.name = 'environment_id') AND NOT EXISTS "
            "(SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'id' AND p.pk = 1)"));
        while (q.next())
            tables << q.value(0).toString();
    }
    QStringList envs;
    {
        QSqlQuery q = db->run(QStringLiteral("SELECT environment_id FROM environments"));
        while (q.next())
            envs << q.value(0).toString();
    }
    for (int copy = 1; QFileInfo(path).size() < targetBytes && copy < 1000; ++copy) {
        store::WriteTransaction tx(*db);
        for (const QString& table : tables) {
            QStringList columns;
            QSqlQuery c =
                db->run(QStringLiteral("SELECT name FROM pragma_table_info('%1')").arg(table));
            while (c.next())
                columns << c.value(0).toString();
            QStringList select = columns;
            select.replaceInStrings(QStringLiteral("environment_id"),
                                    QStringLiteral("environment_id || '-copy%1'").arg(copy));
            for (const QString& env : envs)
                db->run(
                    QStringLiteral("INSERT INTO %1 (%2) SELECT %3 FROM %1 WHERE "
                                   "environment_id = ?")
                        .arg(table, columns.join(QLatin1Char(',')), select.join(QLatin1Char(','))),
                    {env});
        }
        tx.commit();
        db->run(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
        std::printf("grow: copy %d, %.0f MiB\n", copy, mib(QFileInfo(path).size()));
        std::fflush(stdout);
    }
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption dbOpt(QStringLiteral("db"), QStringLiteral("Database file."),
                                   QStringLiteral("FILE"));
    const QCommandLineOption growOpt(QStringLiteral("grow-to-mb"),
                                     QStringLiteral("Copy rows until the file has N MiB."),
                                     QStringLiteral("N"));
    const QCommandLineOption dropOpt(QStringLiteral("drop-caches"),
                                     QStringLiteral("Drop the page cache before measuring."));
    p.addOptions({dbOpt, growOpt, dropOpt});
    p.process(app);
    const QString path = p.value(dbOpt);
    if (path.isEmpty() || !QFileInfo::exists(path)) {
        std::fprintf(stderr, "forkscope_bench_open: --db FILE (an existing database)\n");
        return 2;
    }
    if (p.isSet(growOpt))
        grow(path, qint64(p.value(growOpt).toLongLong()) * 1024 * 1024);

    const bool cold = p.isSet(dropOpt) && dropCaches();
    if (p.isSet(dropOpt) && !cold)
        std::printf("note: cannot drop the page cache here; figures are warm-cache\n");
    QString verdict;
    const double checkMs = timeQuickCheck(path, &verdict);
    if (cold)
        dropCaches();
    QElapsedTimer t;
    t.start();
    auto db = store::Database::open(path); // the first write open of this process: checked
    const double firstOpenMs = double(t.nsecsElapsed()) / 1e6;
    t.restart();
    auto again = store::Database::open(path); // already checked in this process
    const double secondOpenMs = double(t.nsecsElapsed()) / 1e6;
    std::printf("database %s: %.0f MiB\n", qPrintable(path), mib(QFileInfo(path).size()));
    std::printf("PRAGMA quick_check alone: %.0f ms (%s)%s\n", checkMs, qPrintable(verdict),
                cold ? ", cold cache" : "");
    std::printf("Database::open for writing, first in the process (with quick_check): %.0f ms\n",
                firstOpenMs);
    std::printf("Database::open for writing, again (checked already): %.1f ms\n", secondOpenMs);
    std::printf("quick_check throughput: %.0f MiB/s\n",
                mib(QFileInfo(path).size()) / (checkMs / 1000.0));
    return 0;
}
