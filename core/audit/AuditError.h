#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::audit {

// Why an audit or a repair could not run, or stopped. The message is the one line a user
// reads: it names what was wrong and what to do. Nothing was changed when one is thrown
// before a repair's rollback; a repair that fails after it says so in the message.
class AuditError : public std::runtime_error
{
public:
    enum class Kind {
        UnknownEnvironment, // --env names no environment of the database
        Archived,           // read-only history of a reset chain
        NothingIndexed,     // no checkpoint yet
        BadRange,           // --from/--to outside what the checkpoint covers
        OtherChain,         // the node serves another chain (chain id or genesis differ)
        NodeUntrusted,      // the node's answers contradict each other or its headers
        NodeUnavailable,    // the node did not answer (or not in time)
        Unprovable,         // a block this build cannot prove (header layout, receipt type)
        AbiRequired,        // a repair of ABI-decoded logs needs the ABI file
        UnknownPolicy,      // a checkpoint policy this build cannot carry on
        Incomplete,         // a repair rolled back but could not finish indexing again
        InUse,              // another writer follows the environment's head (a shared store)
    };

    AuditError(Kind kind, const QString& message)
        : std::runtime_error(message.toStdString()), m_kind(kind)
    {
    }
    Kind kind() const { return m_kind; }
    QString message() const { return QString::fromUtf8(what()); }

private:
    Kind m_kind;
};

} // namespace forkscope::audit
