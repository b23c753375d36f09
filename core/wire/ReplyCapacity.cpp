#include "ReplyCapacity.h"

namespace forkscope::wire {

void ReplyCapacity::saw(qsizetype logs)
{
    qint64 seen = m_largest.load();
    while (logs > seen && !m_largest.compare_exchange_weak(seen, logs)) {
    }
}

bool ReplyCapacity::mayBeCut(qsizetype logs)
{
    const bool cut = logs > 0 && logs >= m_largest.load();
    saw(logs);
    return cut;
}

} // namespace forkscope::wire
