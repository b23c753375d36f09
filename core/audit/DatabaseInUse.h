#pragma once

#include <QString>
#include <optional>

namespace forkscope::audit {

// Another process that has a WAL database open: the pid holding a lock on its -shm file.
struct DatabaseUser
{
    qint64 pid = 0;
};

// Whether another process has the SQLite database `path` open (a running `forkscope index`,
// the app, a sqlite3 shell). Every WAL connection holds a shared lock on the -shm file for
// as long as it is open (SQLite's "dead man switch" byte), even between transactions, so
// this sees an idle indexer at the head that a failing BEGIN IMMEDIATE would miss.
//
// Call it ONLY before this process opens the database: it opens and closes a descriptor of
// the -shm file, and closing any descriptor of a file drops every POSIX lock the process
// holds on it (SQLite's "how to corrupt" 2.2), which would break this process's own
// connections. nullopt when no other process holds a lock (or there is no -shm: nobody
// has the database open in WAL mode).
std::optional<DatabaseUser> otherDatabaseUser(const QString& path);

} // namespace forkscope::audit
