// SQLite's errors as StoreErrors that say what to do: a locked, read-only, corrupt or
// foreign file each gets one line naming the file and the remedy.
#include "CorruptionWatch.h"
#include "Database.h"

#include <QSqlError>

namespace forkscope::store {

namespace {

// SQLite primary result codes we turn into user-facing advice.
constexpr int kSqliteBusy = 5;
constexpr int kSqliteLocked = 6;
constexpr int kSqliteReadOnly = 8;
constexpr int kSqliteIoErr = 10;
constexpr int kSqliteCorrupt = 11;
constexpr int kSqliteFull = 13;
constexpr int kSqliteCantOpen = 14;
constexpr int kSqliteNotADb = 26;

} // namespace

StoreError Database::errorFrom(const QSqlError& e, const QString& context) const
{
    const int code = e.nativeErrorCode().toInt() & 0xff;
    const QString detail = e.text().trimmed();
    const QString where =
        context.isEmpty() ? m_path : m_path + QStringLiteral(" (") + context + QLatin1Char(')');
    switch (code) {
    case kSqliteBusy:
    case kSqliteLocked:
        return StoreError(StoreError::Kind::Locked,
                          QStringLiteral("database %1 is locked by another process for longer "
                                         "than %2 ms; stop the other writer or use another "
                                         "--db: %3")
                              .arg(where)
                              .arg(m_options.busyTimeout.count())
                              .arg(detail));
    case kSqliteReadOnly:
        return StoreError(StoreError::Kind::ReadOnly,
                          QStringLiteral("database %1 is read-only; check the permissions of the "
                                         "file and its directory: %2")
                              .arg(where, detail));
    case kSqliteCantOpen:
        return StoreError(StoreError::Kind::Io,
                          QStringLiteral("cannot open database %1; check that the directory "
                                         "exists and is writable: %2")
                              .arg(where, detail));
    case kSqliteCorrupt:
        corruption_watch::markCorrupt(m_canonicalPath.isEmpty() ? m_path : m_canonicalPath, detail);
        return StoreError(StoreError::Kind::Corrupt,
                          QStringLiteral("database %1 is corrupt; restore it from a backup or "
                                         "start a new file: %2")
                              .arg(where, detail));
    case kSqliteNotADb:
        return StoreError(StoreError::Kind::NotADatabase,
                          QStringLiteral("%1 is not a SQLite database (or is encrypted or "
                                         "damaged); refusing to use it: %2")
                              .arg(where, detail));
    case kSqliteFull:
    case kSqliteIoErr:
        return StoreError(
            StoreError::Kind::Io,
            QStringLiteral("I/O error on database %1 (disk full?): %2").arg(where, detail));
    default:
        return StoreError(StoreError::Kind::Query,
                          QStringLiteral("database %1: %2").arg(where, detail));
    }
}

} // namespace forkscope::store
