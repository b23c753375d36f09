#pragma once

#include "forktree/ForkTreeLayout.h"
#include "forktree/ForkTreeViewport.h"

#include <QSize>
#include <QString>

namespace forkscope::ui {

// The visible part of the fork tree, as the tab shows it, into a file: a PNG of `size` pixels
// or an SVG of the same size (vector: zoom in on it without losing the text). Errors name the
// file and what went wrong.
bool exportForkTreePng(const QString& path, const QSize& size,
                       const forktree::ForkTreeLayout& layout, const ForkTreeViewport& view,
                       QString* error = nullptr);
bool exportForkTreeSvg(const QString& path, const QSize& size,
                       const forktree::ForkTreeLayout& layout, const ForkTreeViewport& view,
                       QString* error = nullptr);

} // namespace forkscope::ui
