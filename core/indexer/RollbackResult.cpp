#include "RollbackResult.h"

#include <QLatin1String>
#include <QStringList>

namespace forkscope::indexer {

QString RollbackResult::undoneText() const
{
    const auto count = [](qint64 n, const char* one, const char* many) {
        return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
    };
    QStringList parts{count(transfersRemoved, "transfer removed", "transfers removed"),
                      count(balancesChanged, "balance recomputed", "balances recomputed"),
                      count(outboxDropped, "outbox row dropped", "outbox rows dropped")};
    if (deliveredAffected > 0)
        parts << count(deliveredAffected, "delivered row retracted", "delivered rows retracted");
    return parts.join(QStringLiteral(", "));
}

} // namespace forkscope::indexer
