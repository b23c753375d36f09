#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::store {

// A database problem, typed so callers can tell the user what to do about it.
class StoreError : public std::runtime_error
{
public:
    enum class Kind {
        NotADatabase, // the file exists but is not SQLite: we never touch it
        Corrupt,      // SQLite says the image is malformed
        Locked,       // another process holds the write lock longer than our busy timeout
        ReadOnly,     // the file or its directory cannot be written
        NewerSchema,  // written by a newer Forkscope: refusing to guess its meaning
        Io,           // disk full, permission, other I/O
        Query,        // a statement failed for another reason (a bug or a constraint)
        Unsupported,  // a database this build cannot store into (a PostgreSQL URL, for now)
    };

    StoreError(Kind kind, const QString& message)
        : std::runtime_error(message.toStdString()), m_kind(kind)
    {
    }
    Kind kind() const { return m_kind; }
    QString message() const { return QString::fromUtf8(what()); }

private:
    Kind m_kind;
};

} // namespace forkscope::store
