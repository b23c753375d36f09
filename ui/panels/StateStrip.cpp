#include "StateStrip.h"
#include "Palette.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <QUrl>

namespace forkscope::ui {

namespace {
constexpr int kRowHeight = 11;
}

StateStrip::StateStrip(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QString StateStrip::rowLabel(int row) const
{
    const QString node = m_order.value(row);
    const QUrl url(node);
    return url.isValid() && !url.host().isEmpty()
               ? url.host() + (url.port() >= 0 ? QStringLiteral(":%1").arg(url.port()) : QString())
               : node;
}

int StateStrip::rowAt(int y) const
{
    const int row = (y - 1) / (kRowHeight + 2);
    return y >= 1 && row < m_order.size() ? row : -1;
}

QString StateStrip::hoverTextAt(const QPoint& pos) const
{
    const int row = rowAt(pos.y());
    if (row < 0)
        return tr("Each node's state over time (colours as in the legend)");
    const int left = m_leftPx;
    const int right = m_rightPx > left ? m_rightPx : width();
    QString text = m_order[row];
    if (pos.x() >= left && right > left) {
        const double t = m_lower + (m_upper - m_lower) * (pos.x() - left) / double(right - left);
        if (const auto state = stateAt(m_order[row], t))
            text += QStringLiteral("\n%1: %2")
                        .arg(health::nodeStateName(*state), Palette::nodeStateMeaning(*state));
    }
    return text;
}

bool StateStrip::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(e);
        QToolTip::showText(help->globalPos(), hoverTextAt(help->pos()), this);
        return true;
    }
    return QWidget::event(e);
}

QSize StateStrip::sizeHint() const
{
    return {200, std::max(1, int(m_order.size())) * (kRowHeight + 2) + 2};
}

void StateStrip::addSample(const QString& node, double t, health::NodeState state)
{
    if (!m_segments.contains(node)) {
        m_order << node;
        updateGeometry();
    }
    std::deque<Segment>& segs = m_segments[node];
    if (!segs.empty() && segs.back().state == state && t >= segs.back().to)
        segs.back().to = t;
    else {
        if (!segs.empty())
            segs.back().to = std::max(segs.back().to, t); // the old state lasted until now
        segs.push_back({t, t, state});
    }
    while (segs.size() > size_t(kMaxSegments))
        segs.pop_front();
    update();
}

void StateStrip::setTimeRange(double lower, double upper, int leftPx, int rightPx)
{
    if (lower == m_lower && upper == m_upper && leftPx == m_leftPx && rightPx == m_rightPx)
        return;
    m_lower = lower;
    m_upper = upper;
    m_leftPx = leftPx;
    m_rightPx = rightPx;
    update();
}

int StateStrip::segmentCount(const QString& node) const
{
    return int(m_segments.value(node).size());
}

std::optional<health::NodeState> StateStrip::stateAt(const QString& node, double t) const
{
    const auto it = m_segments.constFind(node);
    if (it == m_segments.constEnd())
        return std::nullopt;
    for (auto s = it->rbegin(); s != it->rend(); ++s)
        if (t >= s->from)
            return s->state;
    return std::nullopt;
}

void StateStrip::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const int left = m_leftPx;
    const int right = m_rightPx > left ? m_rightPx : width();
    const double span = m_upper - m_lower;
    if (span <= 0)
        return;
    const auto x = [&](double t) { return left + (t - m_lower) / span * (right - left); };
    QFont small = font();
    small.setPointSizeF(7);
    p.setFont(small);
    for (int row = 0; row < m_order.size(); ++row) {
        const int y = 1 + row * (kRowHeight + 2);
        // The row's node, in the margin under the value axis (the chart's own labels).
        if (left > 16) {
            const QRect box(0, y - 1, left - 4, kRowHeight + 2);
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(box, Qt::AlignRight | Qt::AlignVCenter,
                       QFontMetrics(small).elidedText(rowLabel(row), Qt::ElideLeft, box.width()));
        }
        p.fillRect(QRect(left, y, right - left, kRowHeight),
                   palette().color(QPalette::AlternateBase));
        for (const Segment& s : m_segments.value(m_order[row])) {
            if (s.to < m_lower || s.from > m_upper)
                continue;
            const double x0 = std::max<double>(left, x(s.from));
            // A single sample still shows as a sliver rather than vanishing.
            const double x1 = std::min<double>(right, std::max(x(s.to), x0 + 2));
            p.fillRect(QRectF(x0, y, x1 - x0, kRowHeight), Palette::nodeState(s.state));
        }
    }
}

} // namespace forkscope::ui
