#include "CorruptionWatch.h"

#include <QHash>
#include <QMutex>
#include <atomic>
#include <sqlite3.h>

namespace forkscope::store::corruption_watch {

namespace {

thread_local std::uint64_t t_reports = 0;
thread_local QString t_lastReport;

QMutex& markedMutex()
{
    static QMutex m;
    return m;
}

std::atomic<bool> g_anyMarked{false};

QHash<QString, QString>& marked()
{
    static QHash<QString, QString> h;
    return h;
}

void onSqliteLog(void*, int code, const char* message)
{
    // SQLITE_CORRUPT and its extended codes (CORRUPT_VTAB, _SEQUENCE, _INDEX); NOTADB is a
    // header that is not SQLite's at all, reported as such by Database::open.
    if ((code & 0xff) != SQLITE_CORRUPT)
        return;
    ++t_reports;
    t_lastReport = QString::fromUtf8(message);
}

} // namespace

void install()
{
    static const bool installed = [] {
        // Before SQLite initialises: its per-allocation memory statistics take a global
        // mutex on every malloc, and nothing here reads them.
        sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
        sqlite3_config(SQLITE_CONFIG_LOG, &onSqliteLog, nullptr);
        return true;
    }();
    Q_UNUSED(installed);
}

std::uint64_t reportsOnThisThread()
{
    return t_reports;
}

QString lastReportOnThisThread()
{
    return t_lastReport;
}

void markCorrupt(const QString& canonicalPath, const QString& why)
{
    QMutexLocker lock(&markedMutex());
    if (!marked().contains(canonicalPath))
        marked().insert(canonicalPath, why);
    g_anyMarked = true;
}

QString corruptReason(const QString& canonicalPath)
{
    if (!g_anyMarked) // every statement asks: keep the common case free of the mutex
        return {};
    QMutexLocker lock(&markedMutex());
    return marked().value(canonicalPath);
}

} // namespace forkscope::store::corruption_watch

namespace {
// Also before any connection a test or tool opens through Qt SQL directly.
const bool g_installedAtLoad = (forkscope::store::corruption_watch::install(), true);
} // namespace
