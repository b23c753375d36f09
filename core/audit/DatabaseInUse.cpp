#include "DatabaseInUse.h"

#include <QFile>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace forkscope::audit {

std::optional<DatabaseUser> otherDatabaseUser(const QString& path)
{
    const QByteArray shm = QFile::encodeName(path + QStringLiteral("-shm"));
    const int fd = ::open(shm.constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return std::nullopt; // no -shm: no connection has the WAL database open
    // Would a write lock on the whole file conflict with anyone's? F_GETLK only asks; it
    // takes nothing. A lock of this process never conflicts with itself, so only other
    // processes are reported.
    struct flock probe = {};
    probe.l_type = F_WRLCK;
    probe.l_whence = SEEK_SET;
    probe.l_start = 0;
    probe.l_len = 0;
    const int rc = ::fcntl(fd, F_GETLK, &probe);
    ::close(fd);
    if (rc != 0 || probe.l_type == F_UNLCK)
        return std::nullopt;
    return DatabaseUser{qint64(probe.l_pid)};
}

} // namespace forkscope::audit
