#include "OutboxQueue.h"

namespace forkscope::outbox {

OutboxQueue::~OutboxQueue() = default;

} // namespace forkscope::outbox
