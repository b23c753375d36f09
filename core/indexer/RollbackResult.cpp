#include "RollbackResult.h"

#include "text/Count.h"

#include <QStringList>

namespace forkscope::indexer {

QString RollbackResult::undoneText() const
{
    using text::count;
    QStringList parts{count(transfersRemoved, QStringLiteral("transfer removed"),
                            QStringLiteral("transfers removed")),
                      count(balancesChanged, QStringLiteral("balance recomputed"),
                            QStringLiteral("balances recomputed")),
                      count(outboxDropped, QStringLiteral("outbox row dropped"),
                            QStringLiteral("outbox rows dropped"))};
    if (childrenRemoved > 0)
        parts << count(childrenRemoved, QStringLiteral("child contract removed"),
                       QStringLiteral("child contracts removed"));
    if (deliveredAffected > 0)
        parts << count(deliveredAffected, QStringLiteral("delivered row retracted"),
                       QStringLiteral("delivered rows retracted"));
    if (unconfirmedRetracted > 0)
        parts << count(unconfirmedRetracted, QStringLiteral("row sent without an answer retracted"),
                       QStringLiteral("rows sent without an answer retracted"));
    return parts.join(QStringLiteral(", "));
}

QString RollbackResult::summary() const
{
    return QStringLiteral("checkpoint %1 -> fork %2, depth %3, %4, reorg id %5")
        .arg(oldCheckpoint)
        .arg(forkBlock)
        .arg(depth)
        .arg(undoneText())
        .arg(reorgId);
}

} // namespace forkscope::indexer
