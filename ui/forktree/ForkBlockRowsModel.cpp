#include "forktree/ForkBlockRowsModel.h"
#include "ShortHex.h"

namespace forkscope::ui {

void ForkBlockRowsModel::setBlock(const forktree::ForkBlockRows& block)
{
    beginResetModel();
    m_block = block;
    endResetModel();
}

void ForkBlockRowsModel::clear()
{
    setBlock({});
}

int ForkBlockRowsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_block.rows.size());
}

int ForkBlockRowsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ForkBlockRowsModel::kindName(forktree::ForkBlockRow::Kind kind)
{
    using K = forktree::ForkBlockRow::Kind;
    switch (kind) {
    case K::Log:
        return tr("log");
    case K::Transfer:
        return tr("Transfer");
    case K::OutboxDelivered:
        return tr("outbox row delivered");
    case K::OutboxRetraction:
        return tr("retraction");
    case K::OutboxUnconfirmed:
        return tr("outbox row sent, unanswered");
    }
    return QString();
}

QVariant ForkBlockRowsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_block.rows.size() || index.column() >= ColumnCount)
        return {};
    const forktree::ForkBlockRow& r = m_block.rows[index.row()];
    const bool transfer = r.kind == forktree::ForkBlockRow::Kind::Transfer;
    if (role == Qt::DisplayRole) {
        switch (Column(index.column())) {
        case Kind:
            return kindName(r.kind);
        case Transaction:
            return shortHex(r.txHash.toHex());
        case LogIndex:
            return r.logIndex;
        case Contract:
            return shortHex(r.contract);
        case From:
            return transfer ? shortHex(r.from) : QString();
        case To:
            return transfer ? shortHex(r.to) : QString();
        case Value:
            return transfer ? r.value : QString();
        case CameBack:
            return m_block.orphaned ? (r.cameBack ? tr("yes") : tr("no")) : QString();
        case ColumnCount:
            break;
        }
    } else if (role == Qt::ToolTipRole || role == Qt::UserRole) {
        // The whole value on hover, and for a test or a copy.
        switch (Column(index.column())) {
        case Transaction:
            return r.txHash.toHex();
        case Contract:
            return r.contract;
        case From:
            return r.from;
        case To:
            return r.to;
        default:
            return role == Qt::UserRole ? data(index, Qt::DisplayRole) : QVariant();
        }
    } else if (role == Qt::TextAlignmentRole &&
               (index.column() == LogIndex || index.column() == Value)) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant ForkBlockRowsModel::headerData(int section, Qt::Orientation o, int role) const
{
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Kind:
        return tr("Kind");
    case Transaction:
        return tr("Transaction");
    case LogIndex:
        return tr("Log index");
    case Contract:
        return tr("Contract");
    case From:
        return tr("From");
    case To:
        return tr("To");
    case Value:
        return tr("Value");
    case CameBack:
        return tr("Came back");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace forkscope::ui
