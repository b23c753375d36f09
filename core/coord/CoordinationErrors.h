#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::coord {

// This process's claim on a backfill range ended: its lease ran out and another process
// took the range over. Whatever it wrote for the range must be rolled back, not committed:
// the other process indexes the range, so committing would double it.
class LeaseLostError : public std::runtime_error
{
public:
    explicit LeaseLostError(const QString& message) : std::runtime_error(message.toStdString()) {}
    QString message() const { return QString::fromUtf8(what()); }
};

// The coordination tables disagree with what this process was told (an environment whose
// ranges cover other blocks, a checkpoint missing): stop and say what to fix.
class CoordinationError : public std::runtime_error
{
public:
    explicit CoordinationError(const QString& message) : std::runtime_error(message.toStdString())
    {
    }
    QString message() const { return QString::fromUtf8(what()); }
};

} // namespace forkscope::coord
