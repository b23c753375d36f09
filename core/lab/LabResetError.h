#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::lab {

// `lab reset` refused or failed. The kind tells what state things were left in; the
// message says it in words (and what to do).
class LabResetError : public std::runtime_error
{
public:
    enum class Kind {
        NotAnvil,            // the node has no anvil_reset: nothing was reset or archived
        NodeUnreachable,     // no answer before the reset: nothing was reset or archived
        ResetOutcomeUnknown, // anvil_reset timed out: the node may or may not be reset;
                             // nothing was archived
        ResetFailed,         // anvil_reset answered with an error: nothing was archived
        BadEnvironment,      // unknown or archived --archive, taken --env: nothing done
        DatabaseNotUpdated,  // the node WAS reset but the database write failed
    };

    LabResetError(Kind kind, const QString& message)
        : std::runtime_error(message.toStdString()), m_kind(kind)
    {
    }
    Kind kind() const { return m_kind; }
    QString message() const { return QString::fromUtf8(what()); }

private:
    Kind m_kind;
};

} // namespace forkscope::lab
