// A write open's integrity check (PRAGMA quick_check, once per file and process) and the
// refusal to go on writing to a file SQLite has reported corrupt.
#include "CorruptionWatch.h"
#include "Database.h"

#include <QMutex>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>

namespace forkscope::store {

namespace {

// Files whose integrity this process has checked, so that the indexer, outbox and health
// connections to one file pay for PRAGMA quick_check once.
QMutex g_checkedMutex;
QSet<QString> g_checkedFiles;

} // namespace

void Database::checkIntegrityOnce()
{
    {
        QMutexLocker lock(&g_checkedMutex);
        if (g_checkedFiles.contains(m_canonicalPath))
            return;
    }
    // quick_check walks every b-tree page (structure, cell bounds, freelist, overflow
    // chains) but not the indexes' agreement with their tables: O(N) instead of O(N log N).
    // What it costs on a large file is in bench/README.md.
    QSqlQuery q = run(QStringLiteral("PRAGMA quick_check(5)"));
    QStringList problems;
    while (q.next())
        for (const QString& line : q.value(0).toString().split(QLatin1Char('\n')))
            if (!line.startsWith(QLatin1String("*** in database")))
                problems << line.trimmed(); // one line per problem: the error stays one line
    if (q.lastError().isValid())
        throw errorFrom(q.lastError(), QStringLiteral("PRAGMA quick_check"));
    refuseIfCorrupt();
    if (problems != QStringList{QStringLiteral("ok")}) {
        corruption_watch::markCorrupt(m_canonicalPath, problems.value(0));
        throw StoreError(StoreError::Kind::Corrupt,
                         QStringLiteral("database %1 is corrupt (PRAGMA quick_check: %2%3); "
                                        "refusing to write to it: restore it from a backup or "
                                        "start a new file")
                             .arg(m_path, problems.mid(0, 2).join(QStringLiteral("; ")),
                                  problems.size() > 2 ? QStringLiteral("; and more") : QString()));
    }
    markIntegrityChecked();
}

void Database::markIntegrityChecked()
{
    QMutexLocker lock(&g_checkedMutex);
    g_checkedFiles.insert(m_canonicalPath);
}

void Database::refuseIfCorrupt()
{
    // SQLite reported corruption on this thread since this connection opened (possibly
    // inside a row loop that then just ended early): attribute it to this file. A thread
    // holding connections to two files would blame both, which errs on the side of writing
    // nothing.
    if (corruption_watch::reportsOnThisThread() != m_corruptionBaseline)
        corruption_watch::markCorrupt(m_canonicalPath, corruption_watch::lastReportOnThisThread());
    const QString why = corruption_watch::corruptReason(m_canonicalPath);
    if (!why.isEmpty())
        throw StoreError(
            StoreError::Kind::Corrupt,
            QStringLiteral("database %1 is corrupt (SQLite: %2); stopped, nothing more "
                           "is written to it: restore it from a backup or start a "
                           "new file")
                .arg(m_path, why));
}

} // namespace forkscope::store
