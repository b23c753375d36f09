#pragma once

#include "PlotPanel.h"

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

// Cursor lag: the node's head and the checkpoint, and the gap between them on the right
// axis, with the ETA and the freshness of the last commit in the summary. Fed by the host's
// snapshots; draws nothing until an environment is indexing.
class CursorLagPanel : public PlotPanel
{
    Q_OBJECT
public:
    enum Series { Head, Checkpoint, Lag };

    explicit CursorLagPanel(engine::EngineApi* host, QWidget* parent = nullptr);

private:
    void apply(const engine::EngineStatus& s);
};

} // namespace forkscope::ui
