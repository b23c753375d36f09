#include "ForeignFinding.h"

namespace forkscope::foreign {

QString kindName(ForeignFinding::Kind kind)
{
    switch (kind) {
    case ForeignFinding::Kind::Missing:
        return QStringLiteral("missing");
    case ForeignFinding::Kind::Extra:
        return QStringLiteral("extra");
    case ForeignFinding::Kind::Duplicated:
        return QStringLiteral("duplicated");
    case ForeignFinding::Kind::Altered:
        return QStringLiteral("altered");
    case ForeignFinding::Kind::Orphaned:
        return QStringLiteral("orphaned");
    case ForeignFinding::Kind::WrongBalance:
        return QStringLiteral("wrong_balance");
    }
    return {};
}

QString kindTitle(ForeignFinding::Kind kind)
{
    switch (kind) {
    case ForeignFinding::Kind::Missing:
        return QStringLiteral("every canonical Transfer has a row");
    case ForeignFinding::Kind::Extra:
        return QStringLiteral("every row is a canonical Transfer");
    case ForeignFinding::Kind::Duplicated:
        return QStringLiteral("no Transfer has two rows");
    case ForeignFinding::Kind::Altered:
        return QStringLiteral("every row's fields are its Transfer's");
    case ForeignFinding::Kind::Orphaned:
        return QStringLiteral("no row of a reorged-out block");
    case ForeignFinding::Kind::WrongBalance:
        return QStringLiteral("every balance is the sum of the node's Transfers");
    }
    return {};
}

QString ForeignFinding::describe() const
{
    QString event = QStringLiteral("block %1").arg(block);
    if (!txHash.isEmpty())
        event += QStringLiteral(", tx %1").arg(txHash);
    if (logIndex)
        event += QStringLiteral(", log %1").arg(*logIndex);
    if (!contract.isEmpty())
        event += QStringLiteral(", contract %1").arg(contract);
    switch (kind) {
    case Kind::Missing:
        return QStringLiteral("%1: the node's Transfer (%2) has no row").arg(event, detail);
    case Kind::Extra:
        return QStringLiteral("%1: row %2 is no Transfer of the canonical block (%3)")
            .arg(event, row, detail);
    case Kind::Duplicated:
        return QStringLiteral("%1: %2").arg(event, detail);
    case Kind::Altered:
        return QStringLiteral("%1: row %2 differs in %3: %4")
            .arg(event, row, fields.join(QStringLiteral(", ")), detail);
    case Kind::Orphaned:
        return QStringLiteral("%1: row %2 %3").arg(event, row, detail);
    case Kind::WrongBalance:
        return QStringLiteral("at block %1, contract %2, holder %3: %4 %5")
            .arg(block)
            .arg(contract, holder,
                 row.isEmpty() ? QStringLiteral("the balance row")
                               : QStringLiteral("row %1").arg(row),
                 detail);
    }
    return event;
}

} // namespace forkscope::foreign
