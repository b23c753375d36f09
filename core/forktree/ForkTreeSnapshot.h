#pragma once

#include "forktree/ForkTreeLayout.h"
#include "forktree/ForkTreeWindow.h"

#include <QMetaType>

namespace forkscope::forktree {

// A window of the tree as the read service serves it: the rows it read and their layout,
// computed on the read service's thread, so the tab only paints (a whole chain of 1M blocks
// and 10k branches takes a third of a second to lay out).
struct ForkTreeSnapshot
{
    ForkTreeWindow window;
    ForkTreeLayout layout;
};

inline ForkTreeSnapshot laidOut(ForkTreeWindow window)
{
    ForkTreeSnapshot s;
    s.layout = layoutForkTree(window);
    s.window = std::move(window);
    return s;
}

} // namespace forkscope::forktree

Q_DECLARE_METATYPE(forkscope::forktree::ForkTreeSnapshot)
