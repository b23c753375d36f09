#include "PlotPanel.h"
#include "WholeNumberTicker.h"
#include "widgets/ElidedLabel.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QLabel>
#include <QScopedValueRollback>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <cmath>
#include <limits>

namespace forkscope::ui {

PlotPanel::PlotPanel(const QString& title, const QString& valueAxisLabel, QWidget* parent)
    : QWidget(parent), m_title(title), m_header(new QLabel(this)), m_summary(new ElidedLabel(this)),
      m_placeholder(new QLabel(this)), m_time(new TimeRange(this)), m_chartArea(new QWidget(this)),
      m_plot(new QCustomPlot(m_chartArea)), m_chartRow(new QHBoxLayout(m_chartArea))
{
    setObjectName(title);
    m_header->setObjectName(QStringLiteral("title"));
    m_header->setText(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
    m_placeholder->setObjectName(QStringLiteral("placeholder"));
    m_placeholder->setStyleSheet(QStringLiteral("color: palette(mid);"));
    // Wrapped: a long reason (a missing anvil's install hint) would otherwise set the
    // panel's minimum width and push the right column off a laptop's screen.
    m_placeholder->setWordWrap(true);

    auto timeTicker = QSharedPointer<QCPAxisTickerDateTime>::create();
    timeTicker->setDateTimeFormat(QStringLiteral("HH:mm:ss"));
    m_plot->xAxis->setTicker(timeTicker);
    // The time axis is unlabelled, as in Grafana: its ticks say what it is, and the time
    // range bar says the times are local. Its height goes to the data.
    m_plot->yAxis->setLabel(valueAxisLabel);
    setWholeNumbers(Axis::Left, true);
    setWholeNumbers(Axis::Right, true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    // Pan and zoom the time axis only; values rescale to what is visible.
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->setMinimumHeight(90);
    // Lines as one polyline per series: the measured difference between ~4 and ~2 ms a replot.
    m_plot->setPlottingHint(QCP::phFastPolylines, true);
    m_plot->setMouseTracking(true);
    m_plot->installEventFilter(this);
    // QCustomPlot keeps mouse and wheel events from its parents; the plain wheel must reach
    // the scrolling page around the chart (eventFilter).
    m_plot->setAttribute(Qt::WA_NoMousePropagation, false);
    connect(m_plot, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* p, int index, QMouseEvent*) {
                if (auto* bars = qobject_cast<QCPBars*>(p))
                    emit barClicked(int(m_bars.indexOf(bars)), index);
            });
    // Value axes follow what is visible, computed once per (queued) replot rather than on
    // every appended point and every range change.
    // Only when data or the time range changed since the last replot (a repaint or a hover
    // replot must not rescan a day of samples).
    connect(m_plot, &QCustomPlot::beforeReplot, this, [this] {
        if (std::exchange(m_valuesDirty, false))
            rescaleValues();
    });
    // A drag or Ctrl+wheel moved this chart's time axis: that is the view of every chart
    // now, and following stops (the time range bar says so).
    connect(m_plot->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
            [this](const QCPRange& r) {
                m_valuesDirty = true;
                if (!m_showingView)
                    m_time->setView(r.lower, r.upper);
            });
    // A click on a legend entry hides its series (and takes it out of the value scale);
    // another click brings it back.
    connect(m_plot, &QCustomPlot::legendClick, this,
            [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
                if (auto* entry = qobject_cast<QCPPlottableLegendItem*>(item))
                    setSeriesVisible(entry->plottable()->name(), !entry->plottable()->visible());
            });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(2);
    auto* top = new QHBoxLayout;
    top->addWidget(m_header);
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    top->addWidget(m_summary, 1);
    layout->addLayout(top);
    // The legend is a row under the chart, not a box on the data: its entries side by side
    // from the left, an empty element taking the rest of the row. (Alone in the row, an
    // empty legend's zero maximum width would narrow the chart above it to nothing.)
    m_plot->axisRect()->insetLayout()->take(m_plot->legend);
    auto* legendRow = new QCPLayoutGrid;
    m_plot->plotLayout()->addElement(1, 0, legendRow);
    legendRow->addElement(0, 0, m_plot->legend);
    legendRow->addElement(0, 1, new QCPLayoutElement(m_plot));
    legendRow->setColumnStretchFactor(0, 0.001);
    legendRow->setColumnStretchFactor(1, 1);
    legendRow->setMargins(QMargins(40, 0, 0, 0));
    m_plot->plotLayout()->setRowStretchFactor(1, 0.001);
    m_plot->plotLayout()->setRowSpacing(0);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setBrush(Qt::NoBrush);
    m_plot->legend->setMargins(QMargins(0, 0, 0, 0));
    m_plot->legend->setFont(QFont(font().family(), 8));
    m_plot->legend->setVisible(false); // shown once there is a series to name
    layout->addWidget(m_placeholder);
    m_chartRow->setContentsMargins(0, 0, 0, 0);
    m_chartRow->addWidget(m_plot, 1);
    layout->addWidget(m_chartArea, 1);
    showView(m_time->lower(), m_time->upper());
    connect(m_time, &TimeRange::viewChanged, this, &PlotPanel::showView);
}

void PlotPanel::setTimeRange(TimeRange* range)
{
    if (!range || range == m_time)
        return;
    if (m_time->parent() == this)
        m_time->deleteLater();
    else
        disconnect(m_time, nullptr, this, nullptr);
    m_time = range;
    connect(m_time, &TimeRange::viewChanged, this, &PlotPanel::showView);
    noteData();
    showView(m_time->lower(), m_time->upper());
}

void PlotPanel::showView(double lower, double upper)
{
    const QScopedValueRollback<bool> guard(m_showingView, true);
    m_plot->xAxis->setRange(lower, upper);
    m_valuesDirty = true;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::noteData()
{
    if (m_latest > 0)
        m_time->noteData(m_earliest > 0 ? m_earliest : m_latest, m_latest);
}

void PlotPanel::setPlaceholderText(const QString& text)
{
    m_placeholderText = text;
    showPlaceholder();
}

void PlotPanel::setProblem(const QString& text)
{
    m_problem = text;
    showPlaceholder();
}

void PlotPanel::showPlaceholder()
{
    // Until data arrives: why none is coming, when something is wrong.
    const QString shown =
        m_placeholderText.isEmpty() || m_problem.isEmpty() ? m_placeholderText : m_problem;
    m_placeholder->setText(shown);
    m_placeholder->setVisible(!shown.isEmpty());
}

QString PlotPanel::placeholderText() const
{
    return m_placeholder->text();
}

void PlotPanel::setSummaryExplanation(const QString& text)
{
    m_summary->setExplanation(text);
}

void PlotPanel::setSummary(const QString& text)
{
    m_summary->setText(text);
}

QString PlotPanel::summary() const
{
    return m_summary->text();
}

bool PlotPanel::followLive() const
{
    return m_time->followLive();
}

void PlotPanel::setFollowLive(bool on)
{
    m_time->setFollowLive(on);
}

void PlotPanel::setRangeSecs(double secs)
{
    m_time->setSpanSecs(secs);
}

double PlotPanel::rangeSecs() const
{
    return m_time->spanSecs();
}

void PlotPanel::fitToData()
{
    m_time->fit();
}

void PlotPanel::setValueText(int series, ValueText text)
{
    m_valueText.insert(series, std::move(text));
}

void PlotPanel::setWholeNumbers(Axis axis, bool whole)
{
    QCPAxis* a = axis == Axis::Left ? m_plot->yAxis : m_plot->yAxis2;
    if (whole)
        a->setTicker(QSharedPointer<WholeNumberTicker>::create());
    else
        a->setTicker(QSharedPointer<QCPAxisTicker>::create());
}

int PlotPanel::addSeries(const QString& name, const QColor& color, Axis axis)
{
    QCPGraph* g =
        axis == Axis::Right ? m_plot->addGraph(m_plot->xAxis, m_plot->yAxis2) : m_plot->addGraph();
    if (axis == Axis::Right)
        m_plot->yAxis2->setVisible(true);
    g->setName(name);
    g->setPen(QPen(color, 1.5, axis == Axis::Right ? Qt::DashLine : Qt::SolidLine));
    // Far more points than pixels: let QCustomPlot thin them when drawing.
    g->setAdaptiveSampling(true);
    m_plot->legend->setVisible(true);
    return m_plot->graphCount() - 1;
}

void PlotPanel::setStepLine(int series)
{
    if (QCPGraph* g = m_plot->graph(series))
        g->setLineStyle(QCPGraph::lsStepLeft);
}

void PlotPanel::setSeriesInLegend(int series, bool shown)
{
    QCPGraph* g = m_plot->graph(series);
    if (!g)
        return;
    if (shown)
        g->addToLegend();
    else
        g->removeFromLegend();
}

bool PlotPanel::isSeriesInLegend(int series) const
{
    QCPGraph* g = m_plot->graph(series);
    return g && m_plot->legend->hasItemWithPlottable(g);
}

void PlotPanel::setBarsInLegend(int bars, bool shown)
{
    QCPBars* b = m_bars.value(bars);
    if (!b || shown == m_plot->legend->hasItemWithPlottable(b))
        return;
    if (shown) {
        // In the order the sets were added, whichever appears first.
        b->addToLegend();
        QList<QCPAbstractLegendItem*> items;
        for (QCPBars* other : std::as_const(m_bars))
            if (QCPPlottableLegendItem* item = m_plot->legend->itemWithPlottable(other))
                items << item;
        for (QCPAbstractLegendItem* item : items)
            m_plot->legend->take(item);
        m_plot->legend->simplify();
        for (QCPAbstractLegendItem* item : items)
            m_plot->legend->addItem(item);
    } else {
        b->removeFromLegend();
    }
    m_plot->legend->setVisible(m_plot->legend->itemCount() > 0);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool PlotPanel::isBarsInLegend(int bars) const
{
    QCPBars* b = m_bars.value(bars);
    return b && m_plot->legend->hasItemWithPlottable(b);
}

void PlotPanel::noteEnvironment(const QString& environmentId, double timeSecs)
{
    if (environmentId.isEmpty() || environmentId == m_environment)
        return;
    const bool first = m_environment.isEmpty();
    m_environment = environmentId;
    if (first)
        return;
    // A new environment is a new chain: its series start afresh instead of a line from the
    // old chain's height down to 0 (and a lag spike that never happened).
    for (int i = 0; i < m_plot->graphCount(); ++i) {
        QCPDataContainer<QCPGraphData>& data = *m_plot->graph(i)->data();
        if (!data.isEmpty() && (data.end() - 1)->key < timeSecs)
            m_plot->graph(i)->addData(std::max((data.end() - 1)->key, timeSecs - 0.001), qQNaN());
    }
    auto* line = new QCPItemStraightLine(m_plot);
    line->point1->setCoords(timeSecs, 0);
    line->point2->setCoords(timeSecs, 1);
    line->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    auto* label = new QCPItemText(m_plot);
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(timeSecs, 0.02);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setText(tr("new environment"));
    label->setColor(Qt::gray);
    m_segmentMarks.append({timeSecs, line, label});
    // Bounded, as everything that grows: the oldest marks go.
    while (m_segmentMarks.size() > kMaxSegmentMarks) {
        m_plot->removeItem(m_segmentMarks.first().line);
        m_plot->removeItem(m_segmentMarks.first().label);
        m_segmentMarks.removeFirst();
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int PlotPanel::segmentMarkCount() const
{
    return int(m_segmentMarks.size());
}

void PlotPanel::setRightAxisLabel(const QString& label)
{
    m_plot->yAxis2->setLabel(label);
}

void PlotPanel::appendPoint(int series, double timeSecs, double value)
{
    QCPGraph* g = m_plot->graph(series);
    if (!g)
        return;
    QCPDataContainer<QCPGraphData>& data = *g->data();
    // The newest point stands for its second until it is kMinSpacingSecs past the one
    // before: until then a sample moves it (time and value), so the line still ends at the
    // latest sample while the stored points stay a second apart.
    const auto moveNewest = [&] {
        if (data.size() < 2)
            return false;
        const auto last = data.end() - 1;
        if (timeSecs < last->key || last->key - (last - 1)->key >= kMinSpacingSecs ||
            qIsNaN(last->value)) // a gap stays a gap
            return false;
        last->key = timeSecs;
        last->value = value;
        return true;
    };
    // Samples missing for longer than kGapSecs (an outage, a paused engine): a gap in the
    // line, not a ramp that invents the values in between.
    const bool gap = !data.isEmpty() && timeSecs - (data.end() - 1)->key > kGapSecs;
    if (gap) {
        g->addData((data.end() - 1)->key + kMinSpacingSecs, qQNaN());
        g->addData(timeSecs, value);
    } else if (!moveNewest()) {
        g->addData(timeSecs, value);
    }
    // Older than the history, or beyond the cap (samples out of order): dropped.
    data.removeBefore(std::max(m_latest, timeSecs) - kHistorySecs);
    if (data.size() > kMaxPoints)
        data.removeBefore(data.at(data.size() - kMaxPoints)->key);
    setPlaceholderText({});
    m_latest = std::max(m_latest, timeSecs);
    m_earliest = m_earliest > 0 ? std::min(m_earliest, timeSecs) : timeSecs;
    m_valuesDirty = true;
    noteData();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QCPAbstractPlottable* PlotPanel::plottableNamed(const QString& name) const
{
    for (int i = 0; i < m_plot->plottableCount(); ++i)
        if (m_plot->plottable(i)->name() == name)
            return m_plot->plottable(i);
    return nullptr;
}

void PlotPanel::setSeriesVisible(const QString& name, bool visible)
{
    QCPAbstractPlottable* p = plottableNamed(name);
    if (!p)
        return;
    p->setVisible(visible);
    if (QCPPlottableLegendItem* entry = m_plot->legend->itemWithPlottable(p))
        entry->setTextColor(visible ? Qt::black : Qt::gray);
    m_valuesDirty = true;
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

bool PlotPanel::isSeriesVisible(const QString& name) const
{
    const QCPAbstractPlottable* p = plottableNamed(name);
    return p && p->visible();
}

void PlotPanel::rescaleValues()
{
    // Scale each value axis to the data in the visible time range (not all 24 h), so a
    // zoomed-in view is readable. With a new environment in view, to its data only: the old
    // chain's heights (thousands) would flatten the new one's at the bottom of the axis.
    QCPRange x = m_plot->xAxis->range();
    if (!m_segmentMarks.isEmpty()) {
        const double mark = m_segmentMarks.last().at;
        if (mark > x.lower && mark < x.upper)
            x.lower = mark;
    }
    for (QCPAxis* axis : {m_plot->yAxis, m_plot->yAxis2}) {
        bool found = false;
        QCPRange r;
        for (int i = 0; i < m_plot->plottableCount(); ++i) { // graphs and bars alike
            QCPAbstractPlottable* p = m_plot->plottable(i);
            if (p->valueAxis() != axis || !p->visible()) // a hidden series does not scale
                continue;
            bool ok = false;
            const QCPRange pr = p->getValueRange(ok, QCP::sdBoth, x);
            if (!ok)
                continue;
            r = found ? QCPRange(std::min(r.lower, pr.lower), std::max(r.upper, pr.upper)) : pr;
            found = true;
        }
        // Every value charted is a height, a count, a lag or a rate: never below zero, so an
        // axis never shows "-1" (nor, with nothing to show, -1..1).
        if (!found) {
            axis->setRange(0, 1);
            continue;
        }
        if (!m_bars.isEmpty() && axis == m_plot->yAxis)
            r.lower = 0; // bars grow from zero
        const double pad = std::max(1.0, 0.05 * (r.upper - r.lower));
        axis->setRange(std::max(0.0, r.lower - pad), r.upper + pad);
    }
}

int PlotPanel::addBars(const QString& name, const QColor& color)
{
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(name);
    bars->setPen(QPen(color.darker(130)));
    bars->setBrush(color);
    // Pixels, not seconds: a bar stays visible at a day's span and does not cover a minute
    // at one minute's.
    bars->setWidthType(QCPBars::wtAbsolute);
    bars->setWidth(7);
    m_plot->legend->setVisible(true);
    m_bars.append(bars);
    m_barLabels.append(QStringList());
    return int(m_bars.size()) - 1;
}

void PlotPanel::setBars(int index, const QList<double>& timeSecs, const QList<double>& values)
{
    QCPBars* bars = m_bars.value(index);
    if (!bars)
        return;
    bars->setData(QVector<double>(timeSecs.begin(), timeSecs.end()),
                  QVector<double>(values.begin(), values.end()), true);
    if (!timeSecs.isEmpty()) {
        setPlaceholderText({});
        m_latest = std::max(m_latest, *std::max_element(timeSecs.begin(), timeSecs.end()));
        const double first = *std::min_element(timeSecs.begin(), timeSecs.end());
        m_earliest = m_earliest > 0 ? std::min(m_earliest, first) : first;
    }
    m_valuesDirty = true;
    noteData();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void PlotPanel::setBarLabels(int bars, const QStringList& labels)
{
    if (bars >= 0 && bars < m_barLabels.size())
        m_barLabels[bars] = labels;
}

void PlotPanel::advanceTo(double timeSecs)
{
    if (timeSecs <= m_latest)
        return;
    m_latest = timeSecs;
    m_time->noteNow(timeSecs);
}

void PlotPanel::setChartVisible(bool visible)
{
    // The row goes with its chart (and whatever is beside it), so a footer that says why
    // moves up under the summary instead of sitting under an empty space.
    m_chartArea->setVisible(visible);
}

bool PlotPanel::isChartVisible() const
{
    return !m_chartArea->isHidden();
}

void PlotPanel::addFooter(QWidget* widget)
{
    widget->setParent(this);
    layout()->addWidget(widget);
}

void PlotPanel::addSide(QWidget* widget)
{
    widget->setParent(m_chartArea);
    m_chartRow->addWidget(widget);
}

QList<double> PlotPanel::barValues(int index) const
{
    QList<double> out;
    if (QCPBars* bars = m_bars.value(index))
        for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
            out << it->value;
    return out;
}

int PlotPanel::pointCount(int series) const
{
    QCPGraph* g = m_plot->graph(series);
    return g ? g->dataCount() : 0;
}

} // namespace forkscope::ui
