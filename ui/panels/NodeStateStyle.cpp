#include "NodeStateStyle.h"

#include <QCoreApplication>

namespace forkscope::ui {

QColor nodeStateColor(health::NodeState s)
{
    switch (s) {
    case health::NodeState::CaughtUp:
        return QColor(0x7c, 0xc7, 0x7c);
    case health::NodeState::Lagging:
        return QColor(0xf2, 0xc1, 0x4e);
    case health::NodeState::Offline:
        return QColor(0xe0, 0x6c, 0x6c);
    case health::NodeState::Forked:
        return QColor(0xa9, 0x85, 0xd6);
    case health::NodeState::DroppingLogs:
        return QColor(0xc0, 0x39, 0x2b);
    }
    return Qt::gray;
}

QString nodeStateMeaning(health::NodeState s)
{
    switch (s) {
    case health::NodeState::CaughtUp:
        return QCoreApplication::translate("NodeState",
                                           "caught up: within the lag threshold of the best head");
    case health::NodeState::Lagging:
        return QCoreApplication::translate(
            "NodeState", "lagging: further behind the best head than the threshold");
    case health::NodeState::Offline:
        return QCoreApplication::translate("NodeState", "offline: no answer, or an error reply");
    case health::NodeState::Forked:
        return QCoreApplication::translate(
            "NodeState", "forked: its block differs from the indexed block at that height");
    case health::NodeState::DroppingLogs:
        return QCoreApplication::translate(
            "NodeState", "dropping logs: caught returning fewer logs than its blocks' bloom or "
                         "receipts commit to; its data is not trusted");
    }
    return {};
}

} // namespace forkscope::ui
