#include "PanelGrid.h"
#include "PlotPanel.h"

#include <QGridLayout>
#include <QResizeEvent>
#include <QScrollBar>

namespace forkscope::ui {

PanelGrid::PanelGrid(const QList<PlotPanel*>& panels, QWidget* parent)
    : QScrollArea(parent), m_panels(panels)
{
    setObjectName(QStringLiteral("panelGrid"));
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* content = new QWidget(this);
    m_grid = new QGridLayout(content);
    m_grid->setContentsMargins(0, 0, 0, 0);
    for (PlotPanel* p : m_panels)
        p->setParent(content);
    setWidget(content);
    reflow(2);
}

QSize PanelGrid::minimumSizeHint() const
{
    // One panel's width and a title row's height: the rest scrolls.
    return {240, 120};
}

void PanelGrid::resizeEvent(QResizeEvent* e)
{
    QScrollArea::resizeEvent(e);
    reflow(e->size().width() >= kTwoColumnMinWidth ? 2 : 1);
}

void PanelGrid::reflow(int columns)
{
    if (columns == m_columns)
        return;
    m_columns = columns;
    for (PlotPanel* p : m_panels)
        m_grid->removeWidget(p);
    for (qsizetype i = 0; i < m_panels.size(); ++i)
        m_grid->addWidget(m_panels[i], int(i / columns), int(i % columns));
    for (int r = 0; r < m_grid->rowCount(); ++r)
        m_grid->setRowStretch(r, 1);
    for (int c = 0; c < 2; ++c)
        m_grid->setColumnStretch(c, c < columns ? 1 : 0);
}

} // namespace forkscope::ui
