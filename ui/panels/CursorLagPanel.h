#pragma once

#include "PlotPanel.h"

#include <optional>

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

// Cursor lag: the node's head and the checkpoint, the gap between them shaded and, on the
// right axis, counted, with the ETA and the freshness of the last commit in the summary. Fed by the
// host's snapshots; draws nothing until an environment is indexing.
class CursorLagPanel : public PlotPanel
{
    Q_OBJECT
public:
    enum Series { Head, Checkpoint, Lag };

    explicit CursorLagPanel(engine::EngineApi* host, QWidget* parent = nullptr);
    // The head the chart draws for a snapshot: the one its lag is counted from.
    static std::optional<quint64> chartedHead(const engine::EngineStatus& s);

private:
    void apply(const engine::EngineStatus& s);
};

} // namespace forkscope::ui
