#include "forktree/ForkTreeCanvas.h"
#include "forktree/ForkTreePainter.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>
#include <cmath>

namespace forkscope::ui {

namespace {
constexpr int kClickSlopPx = 4; // a press that moves less than this is a click, not a drag
}

ForkTreeCanvas::ForkTreeCanvas(QWidget* parent) : QWidget(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(320, 200);
    m_view.columnPx = kDefaultColumnPx;
    m_view.lanePx = lanePxFor(m_view.columnPx);
}

double ForkTreeCanvas::lanePxFor(double columnPx)
{
    return std::clamp(columnPx * 0.7, 8.0, 58.0);
}

void ForkTreeCanvas::setTreeLayout(forktree::ForkTreeLayout layout, quint64 anchor)
{
    const double at = m_view.screenX(rect(), m_layout.xOf(anchor));
    const bool first = m_layout.columns.isEmpty();
    m_layout = std::move(layout);
    m_selected = -1;
    m_view.left = m_layout.xOf(anchor) - (at - rect().left()) / m_view.columnPx;
    if (first) // the spine two thirds down, branches above it
        m_view.topLane = double(height()) * 0.66 / m_view.lanePx;
    update();
}

void ForkTreeCanvas::setViewport(const ForkTreeViewport& view)
{
    m_view = view;
    update();
    emit viewChanged();
}

quint64 ForkTreeCanvas::firstVisibleNumber() const
{
    return m_layout.numberAt(m_view.left);
}

quint64 ForkTreeCanvas::lastVisibleNumber() const
{
    return m_layout.numberAt(m_view.right(rect()));
}

quint64 ForkTreeCanvas::centreNumber() const
{
    return m_layout.numberAt(m_view.layoutX(rect(), rect().center().x()));
}

void ForkTreeCanvas::centreOn(quint64 number, double at)
{
    m_view.left = m_layout.xOf(number) - double(width()) * at / m_view.columnPx;
    update();
    emit viewChanged();
}

void ForkTreeCanvas::ensureLaneVisible(int lane)
{
    const double y = m_view.screenY(rect(), lane);
    if (y >= m_view.lanePx && y <= height() - m_view.lanePx)
        return;
    m_view.topLane = double(lane) + double(height()) * 0.5 / m_view.lanePx;
    update();
    emit viewChanged();
}

void ForkTreeCanvas::zoomBy(double factor, double atPx)
{
    if (atPx < 0)
        atPx = width() / 2.0;
    const double x = m_view.layoutX(rect(), atPx);
    const double spineY = m_view.screenY(rect(), 0);
    m_view.columnPx = std::clamp(m_view.columnPx * factor, ForkTreeViewport::kMinColumnPx,
                                 ForkTreeViewport::kMaxColumnPx);
    m_view.lanePx = lanePxFor(m_view.columnPx);
    m_view.left = x - (atPx - rect().left()) / m_view.columnPx;
    m_view.topLane = (spineY - rect().top()) / m_view.lanePx; // the spine stays put
    update();
    emit viewChanged();
}

void ForkTreeCanvas::panBy(double dxPx, double dyPx)
{
    m_view.left -= dxPx / m_view.columnPx;
    m_view.topLane += dyPx / m_view.lanePx;
    update();
    emit viewChanged();
}

void ForkTreeCanvas::setSelectedBox(int box)
{
    m_selected = box;
    update();
}

QRectF ForkTreeCanvas::boxRect(int box) const
{
    if (box < 0 || box >= m_layout.boxes.size())
        return {};
    return ForkTreePainter::boxRect(rect(), m_view, m_layout, m_layout.boxes[box]);
}

void ForkTreeCanvas::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    ForkTreePainter::paint(p, rect(), m_layout, m_view, m_selected);
}

void ForkTreeCanvas::mousePressEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(e);
    m_pressed = true;
    m_dragging = false;
    m_pressAt = m_lastDrag = e->position().toPoint();
}

void ForkTreeCanvas::mouseMoveEvent(QMouseEvent* e)
{
    if (!m_pressed)
        return;
    const QPoint pos = e->position().toPoint();
    if (!m_dragging && (pos - m_pressAt).manhattanLength() < kClickSlopPx)
        return;
    if (!m_dragging)
        setCursor(Qt::ClosedHandCursor);
    m_dragging = true;
    panBy(pos.x() - m_lastDrag.x(), pos.y() - m_lastDrag.y());
    m_lastDrag = pos;
}

void ForkTreeCanvas::mouseReleaseEvent(QMouseEvent* e)
{
    if (e->button() != Qt::LeftButton || !m_pressed)
        return QWidget::mouseReleaseEvent(e);
    m_pressed = false;
    if (m_dragging) {
        m_dragging = false;
        unsetCursor();
        return;
    }
    const auto box = ForkTreePainter::boxAt(rect(), m_layout, m_view, e->position());
    if (!box)
        return;
    setSelectedBox(*box);
    emit boxClicked(*box);
}

void ForkTreeCanvas::wheelEvent(QWheelEvent* e)
{
    const double steps = e->angleDelta().y() / 120.0;
    if (steps == 0)
        return;
    zoomBy(std::pow(1.25, steps), e->position().x());
    e->accept();
}

void ForkTreeCanvas::keyPressEvent(QKeyEvent* e)
{
    switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25);
        break;
    case Qt::Key_Minus:
        zoomBy(0.8);
        break;
    case Qt::Key_Left:
        panBy(width() / 4.0, 0);
        break;
    case Qt::Key_Right:
        panBy(-width() / 4.0, 0);
        break;
    case Qt::Key_Up:
        panBy(0, height() / 6.0);
        break;
    case Qt::Key_Down:
        panBy(0, -height() / 6.0);
        break;
    default:
        QWidget::keyPressEvent(e);
    }
}

} // namespace forkscope::ui
