#pragma once

#include "health/NodeState.h"

#include <QHash>
#include <QWidget>

#include <deque>

namespace forkscope::ui {

// A strip per node under the node-health chart: its state over time as coloured
// segments, drawn over the same time range as the chart above it. Consecutive samples
// of one state merge into one segment; at most kMaxSegments per node are kept.
class StateStrip : public QWidget
{
    Q_OBJECT
public:
    explicit StateStrip(QWidget* parent = nullptr);

    void addSample(const QString& node, double timeSecs, health::NodeState state);
    // The chart's visible time range and the pixel span of its axis, to line up with it.
    void setTimeRange(double lower, double upper, int leftPx, int rightPx);
    int segmentCount(const QString& node) const;
    std::optional<health::NodeState> stateAt(const QString& node, double timeSecs) const;
    QSize sizeHint() const override;
    static constexpr int kMaxSegments = 4000;
    // Each row is labelled in the margin left of the chart's axis: the node's host and port,
    // elided from the left so the port (what tells lab nodes apart) stays.
    QStringList rowNodes() const { return m_order; }
    QString rowLabel(int row) const;
    // Which row is at a y position (-1: none), and the hover text there: node, state at
    // that time, and what the state means.
    int rowAt(int y) const;
    QString hoverTextAt(const QPoint& pos) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Segment
    {
        double from = 0;
        double to = 0;
        health::NodeState state = health::NodeState::Offline;
    };
    QStringList m_order;
    QHash<QString, std::deque<Segment>> m_segments;
    double m_lower = 0;
    double m_upper = 1;
    int m_leftPx = 0;
    int m_rightPx = 0;
};

} // namespace forkscope::ui
