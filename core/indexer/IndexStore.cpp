#include "Coordination.h"
#include "IndexStore.h"

namespace forkscope::indexer {

IndexStore::~IndexStore() = default;
Coordination::~Coordination() = default;

} // namespace forkscope::indexer
