#pragma once

#include "health/NodeState.h"

#include <QColor>
#include <QString>

namespace forkscope::ui {

// One colour and one sentence per node state, shared by the node table, the state strip
// and its legend, so the three always agree.
QColor nodeStateColor(health::NodeState state);
QString nodeStateMeaning(health::NodeState state);

} // namespace forkscope::ui
