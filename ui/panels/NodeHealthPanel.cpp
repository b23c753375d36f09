#include "NodeHealthPanel.h"
#include "Palette.h"
#include "StateStrip.h"
#include "StatusTime.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"
#include "help/Glossary.h"

#include <QLabel>
#include <QSet>
#include <qcustomplot.h>

namespace forkscope::ui {

NodeHealthPanel::NodeHealthPanel(engine::EngineApi* host, QWidget* parent)
    : PlotPanel(tr("Node health"), tr("height (blocks)"), parent), m_stateStrip(new StateStrip)
{
    setObjectName(QStringLiteral("nodeHealthPanel"));
    setSummaryExplanation(explain({QStringLiteral("ready height")}));
    setPlaceholderText(tr("Waiting for the indexer: no data yet."));
    m_stateStrip->setObjectName(QStringLiteral("stateStrip"));
    addFooter(m_stateStrip);
    // One line of swatches and names; what each state means is on hover (and in the state
    // strip's own tooltip), so the chart keeps its height.
    QStringList legend, meanings;
    for (auto s : Palette::nodeStates()) {
        legend << QStringLiteral("<span style=\"background:%1\">&nbsp;&nbsp;&nbsp;</span>&nbsp;%2")
                      .arg(Palette::nodeState(s).name(), health::nodeStateName(s).toHtmlEscaped());
        meanings << Palette::nodeStateMeaning(s);
    }
    auto* legendLabel = new QLabel(legend.join(QStringLiteral(" &nbsp; ")));
    legendLabel->setObjectName(QStringLiteral("nodeStateLegend"));
    legendLabel->setStyleSheet(QStringLiteral("font-size: 8pt"));
    legendLabel->setWordWrap(true);
    legendLabel->setToolTip(meanings.join(QLatin1Char('\n')));
    addFooter(legendLabel);
    connect(plot(), &QCustomPlot::afterReplot, m_stateStrip, [this] { alignStrip(); });
    connect(host, &engine::EngineApi::statusAvailable, this, &NodeHealthPanel::apply);
}

// The strip draws the chart's time range over the pixels of its axis rect.
void NodeHealthPanel::alignStrip()
{
    const QRect r = plot()->axisRect()->rect();
    const int dx =
        plot()->mapTo(this, QPoint(0, 0)).x() - m_stateStrip->mapTo(this, QPoint(0, 0)).x();
    m_stateStrip->setTimeRange(plot()->xAxis->range().lower, plot()->xAxis->range().upper,
                               r.left() + dx, r.right() + dx);
}

void NodeHealthPanel::apply(const engine::EngineStatus& s)
{
    const health::HealthSnapshot& h = s.health;
    if (h.nodes.isEmpty())
        return;
    const double t = statusTime(s);
    noteEnvironment(s.environmentId, t);
    QStringList states;
    QSet<QString> watched;
    for (int i = 0; i < h.nodes.size(); ++i) {
        const health::NodeHealth& n = h.nodes[i];
        if (!m_nodeSeries.contains(n.url)) {
            const int series = addSeries(n.url, Palette::nodeSeries(i));
            // Nodes that agree draw one line: each later node's is narrower than the one
            // before, so every node's colour shows around the lines drawn over it.
            const int order = int(m_nodeSeries.size());
            plot()->graph(series)->setPen(QPen(Palette::nodeSeries(i),
                                               std::max(1.5, 6.0 - 2.0 * order), Qt::SolidLine,
                                               Qt::RoundCap));
            setValueText(series, [](double v) { return tr("block %1").arg(qint64(v)); });
            m_nodeSeries.insert(n.url, series);
        }
        if (n.head && n.state != health::NodeState::Offline)
            appendPoint(m_nodeSeries.value(n.url), t, double(*n.head));
        m_stateStrip->addSample(
            n.url, double(h.at.isValid() ? h.at.toMSecsSinceEpoch() : qint64(t * 1000)) / 1000.0,
            n.state);
        states << health::nodeStateName(n.state);
        watched.insert(n.url);
    }
    // The legend names the nodes watched now; earlier runs' lines stay, unnamed.
    for (auto it = m_nodeSeries.cbegin(); it != m_nodeSeries.cend(); ++it)
        setSeriesInLegend(it.value(), watched.contains(it.key()));
    setPlaceholderText({});
    setSummary(tr("%1: %2 | ready height %3")
                   .arg(engine::text::count(h.nodes.size(), tr("node"), tr("nodes")),
                        states.join(QStringLiteral(", ")),
                        h.readyHeight ? QString::number(*h.readyHeight) : tr("none")));
}

} // namespace forkscope::ui
