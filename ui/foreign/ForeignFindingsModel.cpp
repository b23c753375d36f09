#include "ForeignFindingsModel.h"
#include "ShortHex.h"

namespace forkscope::ui {

int ForeignFindingsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_findings.size());
}

int ForeignFindingsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ForeignFindingsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_findings.size() || index.column() >= ColumnCount)
        return {};
    const foreign::ForeignFinding& f = m_findings.at(index.row());
    const auto text = [&]() -> QString {
        switch (Column(index.column())) {
        case KindColumn:
            return foreign::kindName(f.kind);
        case BlockColumn:
            return QString::number(f.block);
        case LogColumn:
            return f.logIndex ? QString::number(*f.logIndex) : QString();
        case TxColumn:
            return f.txHash;
        case ContractColumn:
            return f.contract;
        case RowColumn:
            return f.row;
        case DetailColumn:
            return f.fields.isEmpty()
                       ? f.detail
                       : tr("%1: %2").arg(f.fields.join(QStringLiteral(", ")), f.detail);
        case ColumnCount:
            break;
        }
        return {};
    };
    switch (role) {
    case Qt::DisplayRole: {
        const QString t = text();
        return index.column() == TxColumn || index.column() == ContractColumn ? shortHex(t) : t;
    }
    case Qt::ToolTipRole:
        return f.describe();
    case Qt::TextAlignmentRole:
        if (index.column() == BlockColumn || index.column() == LogColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
}

QVariant ForeignFindingsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case KindColumn:
        return tr("finding");
    case BlockColumn:
        return tr("block");
    case LogColumn:
        return tr("log index");
    case TxColumn:
        return tr("transaction");
    case ContractColumn:
        return tr("contract");
    case RowColumn:
        return tr("row");
    case DetailColumn:
        return tr("the row against the chain");
    case ColumnCount:
        break;
    }
    return {};
}

void ForeignFindingsModel::apply(const foreign::ForeignWatchSnapshot& snapshot)
{
    if (!snapshot.checkRan())
        return;
    beginResetModel();
    m_findings = snapshot.findings;
    endResetModel();
}

} // namespace forkscope::ui
