#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::wire {

// A node's reply that does not answer the request it was given: a log outside the
// requested block range, from an address nobody asked for, with topics outside the filter,
// marked `removed`, or a block hash that is not the block's. Storing it would break
// invariant 2 (exactly the matching logs of the indexed blocks), so nothing from the batch
// is committed; the node is shown as inconsistent and the range is fetched again later.
class ReplyMismatchError : public std::runtime_error
{
public:
    explicit ReplyMismatchError(const QString& message) : std::runtime_error(message.toStdString())
    {
    }
    QString message() const { return QString::fromUtf8(what()); }
};

} // namespace forkscope::wire
