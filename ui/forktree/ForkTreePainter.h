#pragma once

#include "forktree/ForkTreeLayout.h"
#include "forktree/ForkTreeViewport.h"

#include <QPainter>
#include <QRectF>
#include <optional>

namespace forkscope::ui {

// Draws a fork tree layout into any QPainter: the tab's canvas, the PNG and SVG exports and
// the PDF report all go through paint(), so they show the same picture. Only what falls in
// the target is visited: the columns by binary search, the branches by their fork column.
class ForkTreePainter
{
public:
    // Below this many pixels per column a box is too small to see: branches are drawn as
    // lines and node marks are left out.
    static constexpr double kBoxMinPx = 3;

    static void paint(QPainter& p, const QRectF& target, const forktree::ForkTreeLayout& layout,
                      const ForkTreeViewport& view, int selectedBox = -1);
    // The box under pos (an index into layout.boxes), if any.
    static std::optional<int> boxAt(const QRectF& target, const forktree::ForkTreeLayout& layout,
                                    const ForkTreeViewport& view, const QPointF& pos);
    // A viewport that shows the whole layout in target.
    static ForkTreeViewport fit(const QRectF& target, const forktree::ForkTreeLayout& layout);
    // The report's picture: the whole window laid out (or its layout) fitted into pageRect,
    // drawn at screen scale whatever the device's resolution.
    static void paintWindow(QPainter& p, const QRectF& pageRect,
                            const forktree::ForkTreeWindow& window);
    static void paintLayout(QPainter& p, const QRectF& pageRect,
                            const forktree::ForkTreeLayout& layout);
    // A block number or count as the tree writes it: "1,204".
    static QString grouped(quint64 n);
    // The box's rectangle on screen.
    static QRectF boxRect(const QRectF& target, const ForkTreeViewport& view,
                          const forktree::ForkTreeLayout& layout, const forktree::LayoutBox& box);
};

} // namespace forkscope::ui
