#include "PlotPanel.h"

#include <QDateTime>
#include <QLabel>
#include <QHBoxLayout>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace forkscope::ui {

PlotPanel::PlotPanel(const QString& title, const QString& valueAxisLabel, QWidget* parent)
    : QWidget(parent), m_title(title), m_header(new QLabel(this)), m_summary(new QLabel(this)),
      m_placeholder(new QLabel(this)), m_plot(new QCustomPlot(this))
{
    setObjectName(title);
    m_header->setText(QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()));
    m_placeholder->setObjectName(QStringLiteral("placeholder"));
    m_placeholder->setStyleSheet(QStringLiteral("color: palette(mid);"));

    auto timeTicker = QSharedPointer<QCPAxisTickerDateTime>::create();
    timeTicker->setDateTimeFormat(QStringLiteral("HH:mm:ss"));
    m_plot->xAxis->setTicker(timeTicker);
    m_plot->xAxis->setLabel(tr("time"));
    m_plot->yAxis->setLabel(valueAxisLabel);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    m_plot->xAxis->setRange(now - 300, now + 10);
    m_plot->setMinimumHeight(160);
    connect(m_plot, &QCustomPlot::plottableClick, this,
            [this](QCPAbstractPlottable* p, int index, QMouseEvent*) {
                if (auto* bars = qobject_cast<QCPBars*>(p))
                    emit barClicked(int(m_bars.indexOf(bars)), index);
            });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* top = new QHBoxLayout;
    top->addWidget(m_header);
    top->addStretch(1);
    m_summary->setObjectName(QStringLiteral("summary"));
    top->addWidget(m_summary);
    layout->addLayout(top);
    m_plot->legend->setVisible(false); // shown once there is a series to name
    m_plot->legend->setFont(QFont(font().family(), 8));
    layout->addWidget(m_placeholder);
    layout->addWidget(m_plot, 1);
}

void PlotPanel::setPlaceholderText(const QString& text)
{
    m_placeholder->setText(text);
    m_placeholder->setVisible(!text.isEmpty());
}

QString PlotPanel::placeholderText() const
{
    return m_placeholder->text();
}

void PlotPanel::setSummary(const QString& text)
{
    m_summary->setText(text);
}

QString PlotPanel::summary() const
{
    return m_summary->text();
}

int PlotPanel::addSeries(const QString& name, const QColor& color)
{
    QCPGraph* g = m_plot->addGraph();
    g->setName(name);
    g->setPen(QPen(color, 1.5));
    // Far more points than pixels: let QCustomPlot thin them when drawing.
    g->setAdaptiveSampling(true);
    m_plot->legend->setVisible(true);
    return m_plot->graphCount() - 1;
}

void PlotPanel::appendPoint(int series, double timeSecs, double value)
{
    QCPGraph* g = m_plot->graph(series);
    if (!g)
        return;
    g->addData(timeSecs, value);
    if (g->dataCount() > kMaxPoints)
        g->data()->removeBefore(g->data()->at(g->dataCount() - kMaxPoints)->key);
    setPlaceholderText({});
    // Follow live: the last five minutes.
    m_plot->xAxis->setRange(timeSecs - 300, timeSecs + 5);
    m_plot->yAxis->rescale();
    const QCPRange y = m_plot->yAxis->range();
    m_plot->yAxis->setRange(y.lower - 1, y.upper + 1);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int PlotPanel::addBars(const QString& name, const QColor& color)
{
    auto* bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    bars->setName(name);
    bars->setPen(QPen(color.darker(130)));
    bars->setBrush(color);
    bars->setWidth(4); // seconds: visible at the five-minute follow-live zoom
    m_plot->legend->setVisible(true);
    m_bars.append(bars);
    return int(m_bars.size()) - 1;
}

void PlotPanel::setBars(int index, const QList<double>& timeSecs, const QList<double>& values)
{
    QCPBars* bars = m_bars.value(index);
    if (!bars)
        return;
    bars->setData(QVector<double>(timeSecs.begin(), timeSecs.end()), QVector<double>(values.begin(), values.end()),
                  true);
    if (!timeSecs.isEmpty()) {
        setPlaceholderText({});
        m_plot->xAxis->setRange(timeSecs.last() - 300, timeSecs.last() + 10);
        double top = 1;
        for (QCPBars* b : m_bars)
            for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it)
                top = std::max(top, it->value);
        m_plot->yAxis->setRange(0, top + 1);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
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
