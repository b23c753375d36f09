#pragma once

#include <QString>

namespace forkscope::store {

// True when `candidate` names the database file at `databasePath` or one of SQLite's
// companions (-wal, -shm, -journal), by path or by inode (a hard link or symlink counts).
// Such a file must never be opened by anything but SQLite while the database is in use:
// closing any descriptor of it drops the process's POSIX locks (see Database::open), and
// writing it (an --outbox-file, a report --out) destroys the database.
bool isDatabaseFile(const QString& candidate, const QString& databasePath);

} // namespace forkscope::store
