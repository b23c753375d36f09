#include "IndexStore.h"
#include "Coordination.h"

namespace forkscope::indexer {

IndexStore::~IndexStore() = default;
Coordination::~Coordination() = default;

} // namespace forkscope::indexer
