#include "StateStrip.h"
#include "Palette.h"

#include <QPainter>

namespace forkscope::ui {

namespace {
constexpr int kRowHeight = 10;
}

StateStrip::StateStrip(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setToolTip(tr("Each node's state over time (colours as in the legend)"));
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
    for (int row = 0; row < m_order.size(); ++row) {
        const int y = 1 + row * (kRowHeight + 2);
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
