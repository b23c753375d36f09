#pragma once

#include "PlotPanel.h"

class QLabel;

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

    // The words the summary uses for the safe height: "deliverable up to block 44 (head 44,
    // 0 confirmations)". Pure, for the tests.
    static QString deliverableText(const engine::EngineStatus& s);

signals:
    // The no-sink notice's link: open Settings to configure a webhook or JSON-lines sink.
    void settingsRequested();

private:
    void apply(const engine::EngineStatus& s);

    QLabel* m_noSink;
};

} // namespace forkscope::ui
