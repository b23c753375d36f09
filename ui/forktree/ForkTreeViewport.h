#pragma once

#include <QPointF>
#include <QRectF>

namespace forkscope::ui {

// Which part of a fork tree layout a target rectangle shows, and how large: layout x (one unit
// per column) and lanes (0 the spine, up for branches) to pixels and back.
struct ForkTreeViewport
{
    static constexpr double kMinColumnPx = 0.0005;
    static constexpr double kMaxColumnPx = 160;

    double left = 0;      // layout x at the target's left edge
    double topLane = 3;   // lane at the target's top edge
    double columnPx = 28; // pixels per layout unit of x
    double lanePx = 30;   // pixels per lane

    double screenX(const QRectF& target, double x) const
    {
        return target.left() + (x - left) * columnPx;
    }
    double screenY(const QRectF& target, double lane) const
    {
        return target.top() + (topLane - lane) * lanePx;
    }
    double layoutX(const QRectF& target, double px) const
    {
        return left + (px - target.left()) / columnPx;
    }
    double laneAt(const QRectF& target, double py) const
    {
        return topLane - (py - target.top()) / lanePx;
    }
    double right(const QRectF& target) const { return left + target.width() / columnPx; }
};

} // namespace forkscope::ui
