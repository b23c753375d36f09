#pragma once

#include "PlotPanel.h"

#include <QHash>

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

class StateStrip;

// Node health: each watched node's head over time (a series per node, added as nodes
// appear), a state strip per node lined up under the chart, and the colour legend.
class NodeHealthPanel : public PlotPanel
{
    Q_OBJECT
public:
    explicit NodeHealthPanel(engine::EngineApi* host, QWidget* parent = nullptr);

    StateStrip* stateStrip() const { return m_stateStrip; }

private:
    void apply(const engine::EngineStatus& s);
    void alignStrip();

    StateStrip* m_stateStrip;
    QHash<QString, int> m_nodeSeries; // node URL -> its series
};

} // namespace forkscope::ui
