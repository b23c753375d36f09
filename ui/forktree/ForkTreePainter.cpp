#include "forktree/ForkTreePainter.h"
#include "Palette.h"
#include "ShortHex.h"

#include <QFont>
#include <QFontMetricsF>
#include <QHash>
#include <QLocale>
#include <QPaintDevice>
#include <algorithm>
#include <cmath>

namespace forkscope::ui {

using forktree::BoxKind;
using forktree::ForkTreeLayout;
using forktree::LayoutBox;

namespace {

constexpr double kBoxWidth = 0.78;  // of a column
constexpr double kBoxHeight = 0.62; // of a lane
const QColor kSpineFill(0xe8, 0xee, 0xf6);
const QColor kSpineLine(0x55, 0x66, 0x7a);
const QColor kText(0x20, 0x20, 0x20);

QColor boxFill(const ForkTreeLayout& l, const LayoutBox& b)
{
    switch (b.kind) {
    case BoxKind::Spine:
        return kSpineFill;
    case BoxKind::Orphan:
        return Palette::branchReason(l.branches[b.branch].reason).lighter(160);
    case BoxKind::Stub:
    case BoxKind::Ahead:
        return Qt::white;
    }
    return Qt::white;
}

QPen boxPen(const ForkTreeLayout& l, const LayoutBox& b)
{
    switch (b.kind) {
    case BoxKind::Spine:
        return QPen(kSpineLine, 1);
    case BoxKind::Orphan:
        return QPen(Palette::branchReason(l.branches[b.branch].reason).darker(130), 1.2);
    case BoxKind::Stub: {
        const QColor c = b.nodes.isEmpty() ? Qt::gray : Palette::nodeSeries(b.nodes.front());
        return QPen(c, 1.4, Qt::DashLine);
    }
    case BoxKind::Ahead:
        return QPen(Qt::gray, 1.2, Qt::DotLine);
    }
    return QPen(Qt::black);
}

// Spine line and the collapsed runs' labels across the visible columns.
void paintSpine(QPainter& p, const QRectF& t, const ForkTreeLayout& l, const ForkTreeViewport& v,
                int c0, int c1)
{
    if (l.columns.isEmpty())
        return;
    const double y = v.screenY(t, 0);
    const double x0 = std::max(t.left(), v.screenX(t, l.columns.front().x + 0.5));
    const double x1 = std::min(t.right(), v.screenX(t, l.width() - 0.5));
    p.setPen(QPen(kSpineLine, 2));
    if (x1 > x0)
        p.drawLine(QPointF(x0, y), QPointF(x1, y));
    // Zoomed out, a collapsed run is a few pixels: the spine line alone says enough, and
    // visiting tens of thousands of them would cost more than the rest of the picture.
    if (v.columnPx * ForkTreeLayout::kCollapsedWidth < 3)
        return;
    const QFontMetricsF fm(p.font());
    const QColor gap = kSpineLine.lighter(170);
    for (int c = c0; c < c1; ++c) {
        const forktree::LayoutColumn& col = l.columns[c];
        if (!col.collapsed())
            continue;
        const QRectF r(v.screenX(t, col.x), y - v.lanePx * kBoxHeight / 2, col.width * v.columnPx,
                       v.lanePx * kBoxHeight);
        p.fillRect(r, Qt::white);
        p.setPen(QPen(gap, 2));
        p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
        if (r.width() < 60)
            continue;
        const QString text =
            QStringLiteral("… %1 blocks …").arg(ForkTreePainter::grouped(col.count()));
        if (fm.horizontalAdvance(text) + 4 <= r.width()) {
            p.setPen(kText);
            p.drawText(r, Qt::AlignCenter, text);
        }
    }
}

// Each visible branch's line, from its fork point in its parent's lane to its last block.
void paintBranchLines(QPainter& p, const QRectF& t, const ForkTreeLayout& l,
                      const ForkTreeViewport& v, int c0, int c1, bool linesOnly)
{
    // Zoomed out, many branches fall on the same pixels: one line per lane and pixel span.
    QHash<int, std::pair<int, int>> drawn; // lane -> the last pixel span drawn in it
    for (const int i : l.branchesOverlapping(c0, c1)) {
        const forktree::LayoutBranch& b = l.branches[i];
        const int parentLane = b.parentBranch >= 0 ? l.branches[b.parentBranch].lane : 0;
        const double forkX = v.screenX(t, l.columns[b.forkColumn].x + 0.5);
        const double firstX =
            v.screenX(t, l.columns[std::min(b.forkColumn + 1, b.lastColumn)].x + 0.5);
        const double lastX = v.screenX(t, l.columns[b.lastColumn].x + 0.5);
        if (linesOnly) {
            const std::pair<int, int> span{int(forkX), int(lastX)};
            const auto it = drawn.constFind(b.lane);
            if (it != drawn.constEnd() && it->first == span.first && it->second >= span.second)
                continue;
            drawn.insert(b.lane, span);
        }
        const double y = v.screenY(t, b.lane);
        p.setPen(QPen(Palette::branchReason(b.reason), linesOnly ? 2 : 1.5,
                      b.parentKnown ? Qt::SolidLine : Qt::DashLine));
        const QPointF points[3] = {QPointF(forkX, v.screenY(t, parentLane)),
                                   QPointF(std::max(forkX, firstX - v.columnPx * 0.5), y),
                                   QPointF(std::max(firstX, lastX), y)};
        p.drawPolyline(points, 3);
    }
}

void paintNodeMarks(QPainter& p, const QRectF& box, const LayoutBox& b)
{
    const double r = std::clamp(box.height() / 7, 2.0, 4.0);
    double x = box.left() + r + 1;
    for (const int n : b.nodes) {
        if (x + r > box.right())
            break;
        p.setPen(QPen(Qt::white, 1));
        p.setBrush(Palette::nodeSeries(n));
        p.drawEllipse(QPointF(x, box.bottom() + r + 1), r, r);
        x += 2 * r + 2;
    }
    p.setBrush(Qt::NoBrush);
}

void paintBoxes(QPainter& p, const QRectF& t, const ForkTreeLayout& l, const ForkTreeViewport& v,
                int c0, int c1, int selected)
{
    const QFontMetricsF fm(p.font());
    for (int i = l.columnFirstBox[c0]; i < l.columnFirstBox[c1]; ++i) {
        const LayoutBox& b = l.boxes[i];
        const QRectF r = ForkTreePainter::boxRect(t, v, l, b);
        if (!r.intersects(t))
            continue;
        if (b.lane < 0) { // a node's own head: a dashed tie to where it would sit
            p.setPen(QPen(boxPen(l, b).color(), 1, Qt::DotLine));
            p.drawLine(QPointF(r.center().x(), v.screenY(t, 0)), QPointF(r.center().x(), r.top()));
        }
        p.setPen(i == selected ? QPen(Qt::black, 2.5) : boxPen(l, b));
        p.setBrush(boxFill(l, b));
        p.drawRect(r);
        p.setBrush(Qt::NoBrush);
        if (r.height() >= 2 * fm.height() + 2 &&
            r.width() >= fm.horizontalAdvance(QStringLiteral("0x000…0000"))) {
            p.setPen(kText);
            const QString number = ForkTreePainter::grouped(b.number);
            const QString hash = shortHex(b.hash.toHex());
            p.drawText(r.adjusted(2, 1, -2, -r.height() / 2), Qt::AlignCenter,
                       fm.elidedText(number, Qt::ElideLeft, r.width() - 4));
            p.drawText(r.adjusted(2, r.height() / 2, -2, -1), Qt::AlignCenter,
                       fm.elidedText(hash, Qt::ElideMiddle, r.width() - 4));
        } else if (r.height() >= fm.height() &&
                   r.width() >= fm.horizontalAdvance(ForkTreePainter::grouped(b.number))) {
            p.setPen(kText);
            p.drawText(r, Qt::AlignCenter, ForkTreePainter::grouped(b.number));
        }
        paintNodeMarks(p, r, b);
    }
}

// The legend's rows: the reasons' colours, then each node's.
QList<QPair<QColor, QString>> legendRows(const ForkTreeLayout& l)
{
    QList<QPair<QColor, QString>> rows;
    for (const forktree::BranchReason r :
         {forktree::BranchReason::HashMismatch, forktree::BranchReason::ParentMismatch,
          forktree::BranchReason::Absence, forktree::BranchReason::Repair})
        rows.append({Palette::branchReason(r), Palette::branchReasonName(r)});
    for (int n = 0; n < l.nodes.size(); ++n) {
        const forktree::LayoutNode& node = l.nodes[n];
        QString text = node.name;
        if (node.lagging)
            text += QStringLiteral(" (behind, at %1)").arg(ForkTreePainter::grouped(node.highest));
        if (node.stubs > 0)
            text += QStringLiteral(" (%1 head(s) of its own)").arg(node.stubs);
        rows.append({Palette::nodeSeries(n), text});
    }
    return rows;
}

double legendTextWidth(const QFontMetricsF& fm, const QList<QPair<QColor, QString>>& rows)
{
    double w = 0;
    for (const auto& row : rows)
        w = std::max(w, fm.horizontalAdvance(row.second));
    return w;
}

// Reason colours and node colours, top left, over the tree.
void paintLegend(QPainter& p, const QRectF& t, const ForkTreeLayout& l)
{
    const QFontMetricsF fm(p.font());
    const QList<QPair<QColor, QString>> rows = legendRows(l);
    const double w = legendTextWidth(fm, rows);
    const double lineH = fm.height() + 2;
    const QRectF box(t.left() + 6, t.top() + 6, w + 26, lineH * double(rows.size()) + 6);
    p.setPen(QPen(QColor(0xbb, 0xbb, 0xbb), 1));
    p.setBrush(QColor(255, 255, 255, 225));
    p.drawRect(box);
    double y = box.top() + 3;
    for (int i = 0; i < rows.size(); ++i, y += lineH) {
        p.setPen(Qt::NoPen);
        p.setBrush(rows[i].first);
        if (i < 4)
            p.drawRect(QRectF(box.left() + 5, y + lineH / 2 - 4, 10, 8));
        else
            p.drawEllipse(QPointF(box.left() + 10, y + lineH / 2), 4, 4);
        p.setBrush(Qt::NoBrush);
        p.setPen(kText);
        p.drawText(QRectF(box.left() + 20, y, w + 4, lineH), Qt::AlignVCenter | Qt::AlignLeft,
                   rows[i].second);
    }
}

} // namespace

QString ForkTreePainter::grouped(quint64 n)
{
    return QLocale(QLocale::English, QLocale::UnitedStates).toString(qulonglong(n));
}

QRectF ForkTreePainter::boxRect(const QRectF& t, const ForkTreeViewport& v, const ForkTreeLayout& l,
                                const LayoutBox& b)
{
    const forktree::LayoutColumn& col = l.columns[b.column];
    const double w = v.columnPx * kBoxWidth;
    const double h = v.lanePx * kBoxHeight;
    return QRectF(v.screenX(t, col.x + 0.5) - w / 2, v.screenY(t, b.lane) - h / 2, w, h);
}

void ForkTreePainter::paint(QPainter& p, const QRectF& target, const ForkTreeLayout& l,
                            const ForkTreeViewport& v, int selected)
{
    p.save();
    p.setClipRect(target);
    p.fillRect(target, Qt::white);
    if (!l.columns.isEmpty()) {
        // One column of margin either side: a connector leaving the screen is still drawn.
        const int c0 = std::max(0, l.firstColumnFrom(v.left) - 1);
        const int c1 = std::min(int(l.columns.size()), l.firstColumnFrom(v.right(target)) + 1);
        const bool linesOnly = v.columnPx < kBoxMinPx;
        // Smooth edges when boxes are drawn; zoomed out, thousands of lines go faster without.
        p.setRenderHint(QPainter::Antialiasing, !linesOnly);
        paintSpine(p, target, l, v, c0, c1);
        paintBranchLines(p, target, l, v, c0, c1, linesOnly);
        if (!linesOnly)
            paintBoxes(p, target, l, v, c0, c1, selected);
    }
    paintLegend(p, target, l);
    p.restore();
}

std::optional<int> ForkTreePainter::boxAt(const QRectF& target, const ForkTreeLayout& l,
                                          const ForkTreeViewport& v, const QPointF& pos)
{
    if (v.columnPx < kBoxMinPx)
        return std::nullopt;
    const int c = l.columnUnder(v.layoutX(target, pos.x()));
    if (c < 0)
        return std::nullopt;
    const int lane = int(std::lround(v.laneAt(target, pos.y())));
    for (int i = l.columnFirstBox[c]; i < l.columnFirstBox[c + 1]; ++i)
        if (l.boxes[i].lane == lane && boxRect(target, v, l, l.boxes[i]).contains(pos))
            return i;
    return std::nullopt;
}

ForkTreeViewport ForkTreePainter::fit(const QRectF& target, const ForkTreeLayout& l)
{
    ForkTreeViewport v;
    const double width = std::max(1.0, l.width());
    v.left = 0;
    v.columnPx = std::clamp(target.width() / width, ForkTreeViewport::kMinColumnPx,
                            ForkTreeViewport::kMaxColumnPx);
    const double lanes = double(l.maxLane - l.minLane) + 1.6;
    v.lanePx = std::clamp(target.height() / lanes, 4.0, 36.0);
    // Centred vertically: the top lane half a lane below the edge, or the tree in the middle.
    const double spare = std::max(0.0, target.height() / v.lanePx - lanes);
    v.topLane = double(l.maxLane) + 0.8 + spare / 2;
    return v;
}

void ForkTreePainter::paintWindow(QPainter& p, const QRectF& pageRect,
                                  const forktree::ForkTreeWindow& window)
{
    paintLayout(p, pageRect, forktree::layoutForkTree(window));
}

void ForkTreePainter::paintLayout(QPainter& p, const QRectF& pageRect, const ForkTreeLayout& l)
{
    // Drawn at screen scale (96 per inch) whatever the device's resolution, so lines and text
    // on a 300 dpi page have the weight they have on screen.
    const double scale = p.device() ? std::max(1.0, p.device()->logicalDpiX() / 96.0) : 1.0;
    const QRectF target(QPointF(0, 0), pageRect.size() / scale);
    p.save();
    p.translate(pageRect.topLeft());
    p.scale(scale, scale);
    QFont font = p.font();
    font.setPixelSize(11);
    p.setFont(font);
    // A picture is not panned: the tree is fitted right of the legend, which it would
    // otherwise hide in part.
    const double legend = legendTextWidth(QFontMetricsF(font), legendRows(l)) + 26 + 12;
    ForkTreeViewport v = fit(target.adjusted(legend, 0, 0, 0), l);
    v.left -= legend / v.columnPx;
    paint(p, target, l, v);
    p.restore();
}

} // namespace forkscope::ui
