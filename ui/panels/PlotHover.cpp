// PlotPanel's pointer: what the hover tooltip says at a point of the chart, and which wheel
// events the chart takes.
#include "PlotPanel.h"

#include <QDateTime>
#include <QHelpEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <qcustomplot.h>

#include <cmath>

namespace forkscope::ui {

QString PlotPanel::hoverTextAt(const QPoint& pos) const
{
    // A bar under the cursor wins; otherwise the nearest point of each series at that time.
    for (int b = 0; b < m_bars.size(); ++b) {
        if (!m_bars[b]->visible())
            continue;
        QVariant details;
        if (m_bars[b]->selectTest(pos, false, &details) >= 0 &&
            m_bars[b]->selectTest(pos, false, &details) < m_plot->selectionTolerance()) {
            const QCPDataSelection sel = details.value<QCPDataSelection>();
            if (sel.isEmpty())
                continue;
            const int i = sel.dataRange().begin();
            const auto it = m_bars[b]->data()->at(i);
            const QString label = m_barLabels.value(b).value(i);
            return QStringLiteral("%1\n%2\n%3")
                .arg(QDateTime::fromMSecsSinceEpoch(qint64(it->key * 1000))
                         .toString(QStringLiteral("HH:mm:ss")),
                     m_bars[b]->name(), label.isEmpty() ? tr("click for details") : label);
        }
    }
    if (m_plot->graphCount() == 0 || !m_plot->axisRect()->rect().contains(pos))
        return {};
    const double t = m_plot->xAxis->pixelToCoord(pos.x());
    QStringList lines{
        QDateTime::fromMSecsSinceEpoch(qint64(t * 1000)).toString(QStringLiteral("HH:mm:ss"))};
    // "Near" = within a few pixels of time; a gap in the data is not papered over.
    const double tolerance = std::abs(m_plot->xAxis->pixelToCoord(pos.x() + 8) - t);
    for (int i = 0; i < m_plot->graphCount(); ++i) {
        QCPGraph* g = m_plot->graph(i);
        if (g->dataCount() == 0 || !g->visible())
            continue;
        auto it = g->data()->findBegin(t, true);
        auto best = it;
        if (it != g->data()->constEnd() && it + 1 != g->data()->constEnd() &&
            std::abs((it + 1)->key - t) < std::abs(it->key - t))
            best = it + 1;
        if (best == g->data()->constEnd() || std::abs(best->key - t) > tolerance ||
            qIsNaN(best->value)) // a gap has no value to show
            continue;
        const ValueText text = m_valueText.value(i);
        const QString value =
            text
                ? text(best->value)
                : QString::number(best->value, 'f', best->value == std::floor(best->value) ? 0 : 2);
        lines << QStringLiteral("%1: %2").arg(g->name(), value);
    }
    return lines.size() > 1 ? lines.join(QLatin1Char('\n')) : QString();
}

bool PlotPanel::eventFilter(QObject* watched, QEvent* event)
{
    // The plain wheel scrolls the page, as everywhere else; Ctrl+wheel zooms the time axis.
    // Ignored here, the event goes on to the panel's parents (the scrolling grid).
    if (watched == m_plot && event->type() == QEvent::Wheel &&
        !(static_cast<QWheelEvent*>(event)->modifiers() & Qt::ControlModifier)) {
        event->ignore();
        return true;
    }
    if (watched == m_plot && event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = hoverTextAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, m_plot);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace forkscope::ui
