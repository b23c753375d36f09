#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::foreign {

// Why an audit of another indexer's table could not run. The message is the one line a user
// reads: it names the target, the query, the row or the column that was wrong.
class ForeignError : public std::runtime_error
{
public:
    enum class Kind {
        BadTarget, // the file or the database cannot be opened or read
        BadQuery,  // the query does not run, or lacks a column the audit needs
        BadValue,  // a row's value does not parse as what its column must hold
    };

    ForeignError(Kind kind, const QString& message)
        : std::runtime_error(message.toStdString()), m_kind(kind)
    {
    }
    Kind kind() const { return m_kind; }
    QString message() const { return QString::fromUtf8(what()); }

private:
    Kind m_kind;
};

} // namespace forkscope::foreign
