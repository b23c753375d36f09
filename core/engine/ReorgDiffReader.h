#pragma once

#include "EngineStatus.h"

#include <optional>

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::engine {

// One rollback's diff as the app shows it, read through the contract's surface on either
// store (a SQLite file, or a shared index): its reorg_events row, its reorg_diff_items (at
// most `limit`, by kind, block and log index), and which removed Transfers the new branch
// indexed again (ReindexMatch). nullopt when the environment has no such reorg.
std::optional<ReorgDiff> readReorgDiff(store::ContractReader& reader, const QString& environmentId,
                                       qint64 reorgId, int limit = 10000);

} // namespace forkscope::engine
