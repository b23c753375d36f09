#pragma once

#include <QString>
#include <cstdint>
#include <stdexcept>

namespace forkscope::wire {

// A single block returned exactly as many logs as the provider's result cap: it may hold
// more. Refusing to make progress is deliberate (seed 003): pushing a possibly short
// block would later look like absence and could delete state.
class SuspectedTruncationError : public std::runtime_error
{
public:
    SuspectedTruncationError(std::uint64_t block, std::uint64_t cap)
        : std::runtime_error(
              QStringLiteral("suspected truncation: block %1 returned exactly %2 logs, the "
                             "result cap, so it may hold more. Nothing from this range was "
                             "committed; raise --log-cap if the provider allows more, or use "
                             "another endpoint")
                  .arg(block)
                  .arg(cap)
                  .toStdString()),
          block(block), cap(cap)
    {
    }
    // A block that cannot be fetched whole for another reason (its reply exceeds the
    // reply-size cap): the same refusal, with its own explanation.
    SuspectedTruncationError(std::uint64_t block, const QString& message)
        : std::runtime_error(message.toStdString()), block(block), cap(0)
    {
    }
    QString message() const { return QString::fromUtf8(what()); }
    std::uint64_t block;
    std::uint64_t cap;
};

} // namespace forkscope::wire
