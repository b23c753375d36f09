#pragma once

#include <QString>
#include <cstdint>

namespace forkscope::store {

// SQLite reports every corruption it stumbles on (a malformed page, a bad cell, a broken
// freelist) through its error log, wherever that happens: in a statement's exec, but also
// in the middle of a row loop, where Qt's QSqlQuery::next() turns the error into a quiet
// "no more rows". Forkscope's promise is that nothing more is written once the file is
// known to be damaged, so that report must not be lost: this hook counts it per thread (a
// connection is used on the thread that opened it), and Database checks the count before
// every write.
namespace corruption_watch {

// Installs the hook; must run before SQLite initialises (the first connection). Idempotent.
void install();
// Corruption reports seen on the calling thread since it started.
std::uint64_t reportsOnThisThread();
// SQLite's message for the last report on the calling thread ("database corruption at
// line N of [...]"), for the user-facing error.
QString lastReportOnThisThread();

// A file found corrupt anywhere in this process: every connection to it refuses to write.
void markCorrupt(const QString& canonicalPath, const QString& why);
// Why the file was marked corrupt, or an empty string.
QString corruptReason(const QString& canonicalPath);

} // namespace corruption_watch
} // namespace forkscope::store
