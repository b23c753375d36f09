#pragma once

#include "PlotPanel.h"

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

// Outbox backlog: rows waiting for the safe height or the sink, and the delivery rate; the
// safe height and the head on the right axis show how far the one trails the other.
class OutboxPanel : public PlotPanel
{
    Q_OBJECT
public:
    enum Series { Pending, DeliveredRate, SafeHeight, Head };

    explicit OutboxPanel(engine::EngineApi* host, QWidget* parent = nullptr);

private:
    void apply(const engine::EngineStatus& s);
};

} // namespace forkscope::ui
