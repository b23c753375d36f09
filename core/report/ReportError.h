#pragma once

#include <QString>
#include <QStringList>
#include <stdexcept>

namespace forkscope::report {

// A report could not be built or written. The message says what was wrong and what to do.
class ReportError : public std::runtime_error
{
public:
    explicit ReportError(const QString& message) : std::runtime_error(message.toStdString()) {}
    QString message() const { return QString::fromUtf8(what()); }
};

// The asked-for environment is not in the database (or there is no live one to default
// to). The message lists the environments that do exist, so the user can pick one.
class UnknownEnvironmentError : public ReportError
{
public:
    UnknownEnvironmentError(const QString& message, const QStringList& knownIds)
        : ReportError(message), m_known(knownIds)
    {
    }
    const QStringList& knownIds() const { return m_known; }

private:
    QStringList m_known;
};

} // namespace forkscope::report
