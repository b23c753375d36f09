#pragma once

namespace forkscope::lab {

// What happens to the transactions of the blocks a lab reorg replaces.
enum class ReorgTxMode {
    Keep, // re-mined at the same offsets in the new branch (same transfers, new block hashes)
    Drop, // gone: the new branch has empty blocks (transfers vanish)
    Move, // re-mined one block later (transfers change block); needs depth >= 2
};

} // namespace forkscope::lab
