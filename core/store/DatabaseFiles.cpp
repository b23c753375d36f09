#include "DatabaseFiles.h"

#include <QFile>
#include <QFileInfo>
#include <sys/stat.h>

namespace forkscope::store {

namespace {
// stat(2) reads the inode without opening the file.
bool sameInode(const QString& a, const QString& b)
{
    struct stat sa
    {
    }, sb{};
    if (::stat(QFile::encodeName(a).constData(), &sa) != 0 ||
        ::stat(QFile::encodeName(b).constData(), &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

QString normalized(const QString& path)
{
    const QFileInfo fi(path);
    const QString canonical = fi.canonicalFilePath(); // empty if it does not exist
    return canonical.isEmpty() ? fi.absoluteFilePath() : canonical;
}
} // namespace

bool isDatabaseFile(const QString& candidate, const QString& databasePath)
{
    if (candidate.isEmpty() || databasePath.isEmpty())
        return false;
    const QString c = normalized(candidate);
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        const QString member = databasePath + QLatin1String(suffix);
        if (c == normalized(member) || sameInode(candidate, member))
            return true;
    }
    return false;
}

} // namespace forkscope::store
