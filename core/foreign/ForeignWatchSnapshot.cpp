#include "ForeignWatchSnapshot.h"

namespace forkscope::foreign {

QString watchStateName(ForeignWatchSnapshot::State state)
{
    using S = ForeignWatchSnapshot::State;
    switch (state) {
    case S::Starting:
        return QStringLiteral("starting");
    case S::Waiting:
        return QStringLiteral("waiting for rows");
    case S::Watching:
        return QStringLiteral("watching");
    case S::TargetUnreachable:
        return QStringLiteral("target unreachable");
    case S::QueryFailed:
        return QStringLiteral("query failed");
    case S::NodeUnreachable:
        return QStringLiteral("node unreachable");
    case S::NodeUntrusted:
        return QStringLiteral("node untrusted");
    case S::Refused:
        return QStringLiteral("refused");
    case S::Stopped:
        return QStringLiteral("stopped");
    }
    return {};
}

} // namespace forkscope::foreign
