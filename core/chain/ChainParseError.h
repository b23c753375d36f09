#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::chain {

// Text from outside (a node's reply, a file, a flag) as a one-line message quotes it:
// control characters escaped ("\n", "\u001b"), so it can neither break the line nor drive a
// terminal, and at most `maxChars` of it (all when negative), with its length when cut.
QString shownText(QStringView text, qsizetype maxChars = 80);

// Raised when a value that came from outside (a JSON-RPC reply, a command-line flag, a
// config file) is not exactly what the chain types accept. The message always names the
// field and the offending value so a user can find the bad input without a debugger, on
// one line whatever the value holds (shownText).
class ChainParseError : public std::runtime_error
{
public:
    ChainParseError(const QString& field, const QString& value, const QString& reason);

    const QString& field() const { return m_field; }
    const QString& value() const { return m_value; }
    const QString& reason() const { return m_reason; }
    QString message() const { return QString::fromUtf8(what()); }

private:
    QString m_field;
    QString m_value;
    QString m_reason;
};

} // namespace forkscope::chain
