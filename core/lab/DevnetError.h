#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::lab {

// The managed anvil could not be found, started or reached. The message says what to do.
class DevnetError : public std::runtime_error
{
public:
    explicit DevnetError(const QString& message) : std::runtime_error(message.toStdString()) {}
    QString message() const { return QString::fromUtf8(what()); }
};

} // namespace forkscope::lab
