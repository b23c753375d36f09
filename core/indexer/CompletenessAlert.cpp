#include "CompletenessAlert.h"

namespace forkscope::indexer {

QString CompletenessAlert::summary() const
{
    const QString range = fromBlock == toBlock
                              ? QStringLiteral("block %1").arg(fromBlock)
                              : QStringLiteral("blocks %1-%2").arg(fromBlock).arg(toBlock);
    return QStringLiteral("data incomplete: node %1, %2: %3").arg(node, range, what);
}

} // namespace forkscope::indexer
