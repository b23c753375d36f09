#pragma once

#include "TimeRange.h"

#include <QHash>
#include <QWidget>

#include <functional>

class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QCPBars;
class QCPGraph;
class QCPAbstractItem;
class QCPAbstractPlottable;

namespace forkscope::ui {

class ElidedLabel;

// One titled chart panel with a time axis, a legend under the chart (never over the data),
// hover tooltips and pan/zoom of the time axis it shares with the other panels. Until data
// arrives the panel says plainly that it is waiting rather than drawing invented numbers.
class PlotPanel : public QWidget
{
    Q_OBJECT
public:
    PlotPanel(const QString& title, const QString& valueAxisLabel, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    QString title() const { return m_title; }
    void setPlaceholderText(const QString& text);
    QString placeholderText() const;
    // Shown instead of the placeholder while the panel has no data and something stops it
    // coming (the engine failed, the node does not answer); empty clears it.
    void setProblem(const QString& text);
    void setSummary(const QString& text);
    // What the summary's words mean, on hover (Glossary.h).
    void setSummaryExplanation(const QString& text);
    QString summary() const;

    // A named series; points are appended with appendPoint and redraws are queued, not
    // immediate. A series keeps kHistorySecs at most one point per kMinSpacingSecs: samples
    // that come faster (statuses arrive up to ten times a second) move the newest point
    // instead of adding one, so a day of history is a day, not the last hours, and its
    // memory is bounded by kMaxPoints whatever the status rate (the soak).
    // A series on the right axis has its own scale (e.g. lag next to absolute heights).
    enum class Axis { Left, Right };
    int addSeries(const QString& name, const QColor& color, Axis axis = Axis::Left);
    void setRightAxisLabel(const QString& label);
    // Drawn as steps: a value that flickers between 0 and 1 reads as a level, not a comb.
    void setStepLine(int series);
    // Only what is watched now is named: a node from an earlier run keeps its line.
    void setSeriesInLegend(int series, bool shown);
    bool isSeriesInLegend(int series) const;
    void setBarsInLegend(int bars, bool shown);
    bool isBarsInLegend(int bars) const;
    // Every snapshot names its environment; a different one starts a new, marked segment.
    void noteEnvironment(const QString& environmentId, double timeSecs);
    int segmentMarkCount() const;
    void appendPoint(int series, double timeSecs, double value);
    int pointCount(int series) const;
    // Bars (e.g. one set per reorg reason), replaced as a whole on each update.
    int addBars(const QString& name, const QColor& color);
    void setBars(int bars, const QList<double>& timeSecs, const QList<double>& values);
    QList<double> barValues(int bars) const;
    static constexpr double kHistorySecs = 24 * 3600;
    static constexpr double kMinSpacingSecs = 1;
    static constexpr int kMaxPoints = int(kHistorySecs / kMinSpacingSecs);
    // The visible window while following live, until another span is chosen.
    static constexpr double kLiveWindowSecs = TimeRange::kDefaultSpanSecs;
    // Longer without a sample is an outage: the line breaks instead of ramping across.
    static constexpr double kGapSecs = 5;
    static constexpr int kMaxSegmentMarks = 50;

    // The time axis shows the view of a TimeRange: the window's one, shared by every panel
    // (setTimeRange), or the panel's own until then. A drag or Ctrl+wheel on the chart sets
    // that view (and stops following live); the plain wheel scrolls the page instead.
    void setTimeRange(TimeRange* range);
    TimeRange* timeRange() const { return m_time; }
    bool followLive() const;
    void setFollowLive(bool on);
    void setRangeSecs(double secs);
    double rangeSecs() const;
    void fitToData();
    // A series (or bar set) hidden from the chart and the value scale; its legend entry is
    // greyed, and a click on it brings the series back.
    void setSeriesVisible(const QString& name, bool visible);
    bool isSeriesVisible(const QString& name) const;
    // What the hover tooltip says at a widget position of the plot (empty: nothing near).
    QString hoverTextAt(const QPoint& plotPos) const;
    // How a series' value reads on hover ("block 404", "31 blocks"); by default the bare
    // number.
    using ValueText = std::function<QString(double)>;
    void setValueText(int series, ValueText text);
    // An axis whose values are whole numbers (heights, counts) gets whole-number ticks,
    // never 0.2 or 2.5; on by default, off for an axis that also carries a rate.
    void setWholeNumbers(Axis axis, bool whole);
    // A plain-text name for a bar's tooltip, set by the owner (e.g. "reorg #3 ...").
    void setBarLabels(int bars, const QStringList& labels);
    // Moves "now" forward without a data point (a panel whose data is sparse, like reorg
    // bars, still follows the clock).
    void advanceTo(double timeSecs);
    // A widget shown under the chart (e.g. the node state strip and its legend).
    void addFooter(QWidget* widget);
    // A widget beside the chart, on its right (e.g. the list of reorgs): it takes width,
    // never height, so a panel that gains one does not push the panels below it away.
    void addSide(QWidget* widget);
    // Hide the chart (and its Follow live) when it would only mislead, e.g. an outbox
    // backlog that grows because no sink is configured; a footer then says why.
    void setChartVisible(bool visible);
    bool isChartVisible() const;

signals:
    // A bar (of addBars set `bars`) was clicked; `index` is its position in that set.
    void barClicked(int bars, int index);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void showPlaceholder();
    void showView(double lower, double upper);
    void noteData();
    void rescaleValues();
    QCPAbstractPlottable* plottableNamed(const QString& name) const;

    QString m_title;
    QLabel* m_header;
    ElidedLabel* m_summary;
    QLabel* m_placeholder;
    QString m_placeholderText; // "no data yet", until data arrives
    QString m_problem;
    TimeRange* m_time;
    bool m_showingView = false; // the time axis moves to the TimeRange's view, not the user
    QWidget* m_chartArea;       // the chart and what is beside it
    QCustomPlot* m_plot;
    QHBoxLayout* m_chartRow;
    QHash<int, ValueText> m_valueText;
    QList<QCPBars*> m_bars;
    QList<QStringList> m_barLabels;
    QString m_environment; // the environment the series are of
    struct SegmentMark
    {
        double at; // seconds, where the new environment starts
        QCPAbstractItem* line;
        QCPAbstractItem* label;
    };
    QList<SegmentMark> m_segmentMarks;
    double m_latest = 0;       // newest time seen
    double m_earliest = 0;     // oldest time seen, for Fit and All
    bool m_valuesDirty = true; // data or time range changed: value axes to rescale
};

} // namespace forkscope::ui
