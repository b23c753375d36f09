#include "ReportCharts.h"
#include "Palette.h"

#include <QMap>
#include <qcustomplot.h>

namespace forkscope::ui {

namespace {

void useTimeAxis(QCustomPlot& plot)
{
    auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
    ticker->setDateTimeFormat(QStringLiteral("MM-dd\nHH:mm:ss"));
    // The report's times are the app's: local (LocalTime).
    ticker->setDateTimeSpec(Qt::LocalTime);
    plot.xAxis->setTicker(ticker);
    plot.xAxis->setLabel(QStringLiteral("time (local)"));
}

void setUp(QCustomPlot& plot, const QSize& size, const QString& title, const QString& yLabel)
{
    plot.resize(size);
    plot.setBackground(Qt::white);
    plot.plotLayout()->insertRow(0);
    auto* heading =
        new QCPTextElement(&plot, title, QFont(QStringLiteral("DejaVu Sans"), 11, QFont::Bold));
    plot.plotLayout()->addElement(0, 0, heading);
    plot.yAxis->setLabel(yLabel);
}

// Says so in the plot area instead of drawing an empty frame that looks like a bug.
void noData(QCustomPlot& plot, const QString& text)
{
    auto* label = new QCPItemText(&plot);
    label->position->setType(QCPItemPosition::ptAxisRectRatio);
    label->position->setCoords(0.5, 0.5);
    label->setText(text);
    label->setColor(Qt::darkGray);
}

// The legend in a column right of the axis rect, so it never covers the data.
void legendOutside(QCustomPlot& plot)
{
    plot.legend->setVisible(true);
    plot.legend->setBorderPen(Qt::NoPen);
    auto* column = new QCPLayoutGrid;
    plot.plotLayout()->addElement(1, 1, column);
    column->setMargins(QMargins(4, 0, 4, 4));
    plot.axisRect()->insetLayout()->take(plot.legend);
    column->addElement(0, 0, plot.legend);
    plot.plotLayout()->setColumnStretchFactor(1, 0.001);
}

QImage finish(QCustomPlot& plot, const QSize& size, double scale)
{
    plot.replot(QCustomPlot::rpImmediateRefresh);
    return plot.toPixmap(size.width(), size.height(), scale).toImage();
}

QImage cursorChart(const report::CheckpointReport& r, const QSize& size, double scale)
{
    QCustomPlot plot;
    setUp(plot, size, ReportCharts::title(ReportCharts::Cursor), QStringLiteral("block"));
    useTimeAxis(plot);
    plot.xAxis->setLabel(QStringLiteral("block time (local)"));
    QCPGraph* g = plot.addGraph();
    g->setPen(QPen(Palette::series(Palette::Series::Checkpoint), 2));
    g->setLineStyle(QCPGraph::lsStepLeft);
    for (qsizetype i = ReportCharts::genesisApart(r) ? 1 : 0; i < r.series.blocks.size(); ++i)
        g->addData(r.series.blocks[i].x, r.series.blocks[i].y);
    if (r.series.blocks.size() <= 200) // few points: show each, not just a line
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    if (r.series.blocks.isEmpty())
        noData(plot, QStringLiteral("no indexed blocks"));
    else
        plot.rescaleAxes();
    return finish(plot, size, scale);
}

QImage reorgChart(const report::CheckpointReport& r, const QSize& size, double scale)
{
    QCustomPlot plot;
    setUp(plot, size, ReportCharts::title(ReportCharts::Reorgs), QStringLiteral("depth (blocks)"));
    if (r.series.reorgs.isEmpty())
        return {};
    useTimeAxis(plot);
    double lo = r.series.reorgs.first().time;
    double hi = lo;
    qint64 deepest = 1;
    for (const auto& p : r.series.reorgs) {
        lo = std::min(lo, p.time);
        hi = std::max(hi, p.time);
        deepest = std::max(deepest, p.depth);
    }
    const double pad = std::max(30.0, (hi - lo) * 0.05);
    const double width = std::max(1.0, (hi - lo + 2 * pad) / 60.0);
    QMap<QString, QCPBars*> byReason;
    for (const auto& p : r.series.reorgs) {
        QCPBars*& bars = byReason[p.reason];
        if (!bars) {
            bars = new QCPBars(plot.xAxis, plot.yAxis);
            bars->setName(p.reason);
            bars->setWidth(width);
            bars->setPen(Qt::NoPen);
            // The live panel's colours, so a printed chart reads like the live one.
            bars->setBrush(Palette::reorgReason(p.reason));
        }
        bars->addData(p.time, double(p.depth));
    }
    // The legend beside the plot, not on the bars.
    legendOutside(plot);
    plot.xAxis->setRange(lo - pad, hi + pad);
    plot.yAxis->setRange(0, double(deepest) * 1.2 + 1);
    return finish(plot, size, scale);
}

QImage nodeHealthChart(const report::CheckpointReport& r, const QSize& size, double scale)
{
    if (r.nodeHistory.isEmpty())
        return {};
    QCustomPlot plot;
    setUp(plot, size, ReportCharts::title(ReportCharts::NodeHealth), QStringLiteral("head"));
    useTimeAxis(plot);
    static const QList<QColor> nodeColors{QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e),
                                          QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd),
                                          QColor(0x8c, 0x56, 0x4b)};
    bool any = false;
    for (qsizetype i = 0; i < r.nodeHistory.size(); ++i) {
        const auto& track = r.nodeHistory[i];
        QCPGraph* g = plot.addGraph();
        g->setName(QStringLiteral("node %1").arg(i + 1));
        g->setPen(QPen(nodeColors.value(int(i % nodeColors.size())), 1.5));
        g->setLineStyle(QCPGraph::lsStepLeft);
        // Polls where the node was not caught up, marked in its state's colour.
        QMap<health::NodeState, QCPGraph*> marks;
        for (const health::HealthSample& h : track.samples) {
            if (h.state == health::NodeState::Offline)
                continue; // no head to draw: the line breaks there
            g->addData(double(h.atMs) / 1000.0, double(h.height));
            any = true;
            if (h.state == health::NodeState::CaughtUp)
                continue;
            QCPGraph*& m = marks[h.state];
            if (!m) {
                m = plot.addGraph();
                m->setLineStyle(QCPGraph::lsNone);
                m->setScatterStyle(
                    QCPScatterStyle(QCPScatterStyle::ssDisc, Palette::nodeState(h.state), 5));
                m->setName(
                    QStringLiteral("node %1 %2").arg(i + 1).arg(health::nodeStateName(h.state)));
            }
            m->addData(double(h.atMs) / 1000.0, double(h.height));
        }
    }
    if (!any)
        noData(plot, QStringLiteral("no node answered while this environment was live"));
    else
        plot.rescaleAxes();
    legendOutside(plot);
    return finish(plot, size, scale);
}

QImage outboxChart(const report::CheckpointReport& r, const QSize& size, double scale)
{
    QCustomPlot plot;
    setUp(plot, size, ReportCharts::title(ReportCharts::Outbox), QStringLiteral("rows"));
    if (!r.series.outboxDelivered.isEmpty() || r.series.outboxPendingByBlock.isEmpty()) {
        useTimeAxis(plot);
        QCPGraph* g = plot.addGraph();
        g->setName(QStringLiteral("delivered (running total)"));
        g->setPen(QPen(Palette::series(Palette::Series::DeliveredTotal), 2));
        g->setLineStyle(QCPGraph::lsStepLeft);
        for (const auto& p : r.series.outboxDelivered)
            g->addData(p.x, p.y);
        if (r.series.outboxDelivered.isEmpty())
            noData(plot, QStringLiteral("no outbox rows"));
        else
            plot.rescaleAxes();
        plot.yAxis->setRangeLower(0);
        return finish(plot, size, scale);
    }
    // Nothing delivered yet (no sink configured): the backlog by block is what there is.
    plot.xAxis->setLabel(QStringLiteral("block (nothing delivered yet: pending rows by block)"));
    auto* bars = new QCPBars(plot.xAxis, plot.yAxis);
    bars->setPen(Qt::NoPen);
    bars->setBrush(Palette::series(Palette::Series::OutboxPending));
    for (const auto& p : r.series.outboxPendingByBlock)
        bars->addData(p.x, p.y);
    bars->setWidth(std::max(
        1.0, (r.series.outboxPendingByBlock.last().x - r.series.outboxPendingByBlock.first().x) /
                 std::max<qsizetype>(1, r.series.outboxPendingByBlock.size())));
    plot.rescaleAxes();
    plot.xAxis->setRange(plot.xAxis->range().lower - 1, plot.xAxis->range().upper + 1);
    plot.yAxis->setRange(0, plot.yAxis->range().upper * 1.2 + 1);
    return finish(plot, size, scale);
}

} // namespace

bool ReportCharts::genesisApart(const report::CheckpointReport& r)
{
    const auto& b = r.series.blocks;
    return b.size() > 1 && b.first().y == 0 && b[1].x - b.first().x > 60;
}

QString ReportCharts::title(Chart chart)
{
    switch (chart) {
    case Cursor:
        return QStringLiteral("Cursor: indexed block height over block time");
    case Reorgs:
        return QStringLiteral("Reorgs: depth by reason");
    case Outbox:
        return QStringLiteral("Outbox: rows delivered over time");
    case NodeHealth:
        return QStringLiteral("Node health: each node's head over time");
    case Count:
        break;
    }
    return {};
}

QList<QImage> ReportCharts::render(const report::CheckpointReport& report, const QSize& size,
                                   double scale)
{
    return {cursorChart(report, size, scale), reorgChart(report, size, scale),
            outboxChart(report, size, scale), nodeHealthChart(report, size, scale)};
}

} // namespace forkscope::ui
