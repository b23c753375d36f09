#include "PlotPanel.h"

#include <QLabel>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace forkscope::ui {

PlotPanel::PlotPanel(const QString& title, const QString& valueAxisLabel, QWidget* parent)
    : QWidget(parent), m_title(title), m_header(new QLabel(this)),
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
    m_plot->setMinimumHeight(160);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_header);
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

} // namespace forkscope::ui
