#include "EngineApi.h"

namespace forkscope::engine {

EngineApi::~EngineApi() = default; // anchors the vtable and the moc output here

} // namespace forkscope::engine
