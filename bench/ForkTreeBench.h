#pragma once

namespace forkscope::bench {

// The Fork tree tab on a synthetic history: `reorgs` rollbacks over `blocks` blocks, windows
// cut as the reader cuts them. Prints the time to open the tab (first layout and paint), to
// lay out and paint the whole chain zoomed out, and per pan at both zooms.
void runForkTreeBench(int reorgs, int blocks);

} // namespace forkscope::bench
