#pragma once

#include "forktree/ForkTreeLayout.h"
#include "forktree/ForkTreeViewport.h"

#include <QPoint>
#include <QWidget>

namespace forkscope::ui {

// The fork tree itself: paints the part of the layout on screen (ForkTreePainter), pans on a
// drag or the arrow keys, zooms on the wheel or +/-, and reports a click on a box.
class ForkTreeCanvas : public QWidget
{
    Q_OBJECT
public:
    static constexpr double kDefaultColumnPx = 84;

    explicit ForkTreeCanvas(QWidget* parent = nullptr);

    // A new layout; the view keeps block `anchor` where it was on screen.
    void setTreeLayout(forktree::ForkTreeLayout layout, quint64 anchor);
    const forktree::ForkTreeLayout& treeLayout() const { return m_layout; }
    const ForkTreeViewport& viewport() const { return m_view; }
    void setViewport(const ForkTreeViewport& view);

    // The block numbers from the left edge to the right edge.
    quint64 firstVisibleNumber() const;
    quint64 lastVisibleNumber() const;
    quint64 centreNumber() const;
    // Puts `number` at the given fraction of the width (0.5: the middle).
    void centreOn(quint64 number, double at = 0.5);
    // Scrolls up or down so that `lane` is on screen, if it is not.
    void ensureLaneVisible(int lane);
    // Zooms by factor around the pixel column `atPx` (the centre by default).
    void zoomBy(double factor, double atPx = -1);
    void panBy(double dxPx, double dyPx);

    int selectedBox() const { return m_selected; }
    void setSelectedBox(int box);
    // Where a box is drawn now, for a test's click.
    QRectF boxRect(int box) const;

signals:
    void viewChanged();
    void boxClicked(int box);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;

private:
    static double lanePxFor(double columnPx);

    forktree::ForkTreeLayout m_layout;
    ForkTreeViewport m_view;
    int m_selected = -1;
    QPoint m_pressAt;
    QPoint m_lastDrag;
    bool m_dragging = false;
    bool m_pressed = false;
};

} // namespace forkscope::ui
