#include "ElidedLabel.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace forkscope::ui {

ElidedLabel::ElidedLabel(QWidget* parent, Qt::TextElideMode mode) : QLabel(parent), m_mode(mode)
{
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

QSize ElidedLabel::minimumSizeHint() const
{
    // Room for a few characters and the ellipsis: enough to see that something is there.
    const QFontMetrics fm(font());
    const QMargins m = contentsMargins();
    return {fm.horizontalAdvance(QStringLiteral("MMMM…")) + m.left() + m.right() + 2 * margin(),
            QLabel::minimumSizeHint().height()};
}

QSize ElidedLabel::sizeHint() const
{
    const QFontMetrics fm(font());
    const QMargins m = contentsMargins();
    return {fm.horizontalAdvance(text()) + m.left() + m.right() + 2 * margin() + 1,
            QLabel::sizeHint().height()};
}

bool ElidedLabel::isElided() const
{
    return QFontMetrics(font()).horizontalAdvance(text()) > contentsRect().width() - 2 * margin();
}

bool ElidedLabel::event(QEvent* e)
{
    // The whole text on hover when it is cut, unless the label has a tooltip of its own.
    if (e->type() == QEvent::ToolTip && toolTip().isEmpty()) {
        QStringList parts;
        if (isElided())
            parts << text();
        if (!m_explanation.isEmpty())
            parts << m_explanation;
        if (parts.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(static_cast<QHelpEvent*>(e)->globalPos(),
                               parts.join(QStringLiteral("\n\n")), this);
        return true;
    }
    return QLabel::event(e);
}

void ElidedLabel::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QRect r = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
    p.setPen(palette().color(foregroundRole()));
    const QString shown = QFontMetrics(font()).elidedText(text(), m_mode, r.width());
    p.drawText(r, int(alignment() | Qt::TextSingleLine), shown);
}

} // namespace forkscope::ui
