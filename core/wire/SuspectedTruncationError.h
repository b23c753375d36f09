#pragma once

#include <QString>
#include <cstdint>
#include <stdexcept>

namespace forkscope::wire {

// A block that cannot be fetched whole: its result sits exactly on the provider's cap, its
// reply exceeds the reply cap, or its logs do not reproduce the header's bloom. Refusing to
// make progress is deliberate (docs/design.md, "Completeness is an invariant"): pushing a possibly
// short block would later look like absence and could delete state, and the app must never look
// synced over a gap.
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
    // The same refusal for another reason, explained by `message`; `node` names the
    // provider when the reason is something it did.
    SuspectedTruncationError(std::uint64_t block, const QString& message, QString node = {})
        : std::runtime_error(message.toStdString()), block(block), cap(0), node(std::move(node))
    {
    }
    QString message() const { return QString::fromUtf8(what()); }
    std::uint64_t block;
    std::uint64_t cap;
    QString node;
};

} // namespace forkscope::wire
