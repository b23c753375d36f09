#include "AddedSource.h"

namespace forkscope::indexer {

QString sourceStateText(SourceState state)
{
    switch (state) {
    case SourceState::Pending:
        return QStringLiteral("pending");
    case SourceState::Joined:
        return QStringLiteral("joined");
    case SourceState::Archived:
        return QStringLiteral("archived");
    }
    return {};
}

std::optional<SourceState> sourceStateFromText(const QString& text)
{
    for (SourceState s : {SourceState::Pending, SourceState::Joined, SourceState::Archived})
        if (sourceStateText(s) == text)
            return s;
    return std::nullopt;
}

} // namespace forkscope::indexer
