// Must compile and link: everything the window may include, through forkscope_engine_api
// alone (the control for the two probes beside it).
#include "engine/EngineApi.h"
#include "engine/SyncProgress.h"
#include "indexer/ReorgReason.h"
#include "lab/ReorgTxMode.h"

int main()
{
    const auto* meta = &forkscope::engine::EngineApi::staticMetaObject;
    return meta->methodCount() > 0 && forkscope::engine::humanDuration(1).size() > 0 &&
                   !forkscope::indexer::reorg_reason::kRepair.isEmpty()
               ? 0
               : 1;
}
