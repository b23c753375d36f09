#include "SourceTableModel.h"

namespace forkscope::ui {

using engine::SourceList;

SourceTableModel::SourceTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int SourceTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_list.sources.size());
}

int SourceTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString SourceTableModel::text(int row, Column column) const
{
    if (row < 0 || row >= m_list.sources.size())
        return {};
    const SourceList::Source& s = m_list.sources.at(row);
    const bool factory = s.kind == SourceList::Kind::Factory;
    switch (column) {
    case Kind:
        if (s.backfilling)
            return factory ? tr("factory, backfilling") : tr("contract, backfilling");
        return factory ? tr("factory") : tr("contract");
    case Address:
        return s.address;
    case CreationEvent:
        return factory ? tr("%1, child: %2").arg(s.event, s.childArg) : QString();
    case Checkpoint:
        return s.hasCheckpoint ? QString::number(s.checkpoint) : tr("none yet");
    case Progress: {
        if (s.backfilling) {
            // Towards the environment's checkpoint, where it joins the others.
            const double span = double(s.joinAt - std::min(s.startBlock, s.joinAt)) + 1.0;
            const double done = s.hasCheckpoint && s.checkpoint >= s.startBlock
                                    ? double(s.checkpoint - s.startBlock) + 1.0
                                    : 0.0;
            return tr("backfilling: %1 % (joins at block %2)")
                .arg(QString::number(std::min(100.0, 100.0 * done / span), 'f', 1))
                .arg(s.joinAt);
        }
        if (!m_head)
            return tr("head unknown");
        if (s.checkpoint >= *m_head)
            return tr("at the head");
        const double span = double(*m_head - std::min(s.startBlock, *m_head)) + 1.0;
        const double done =
            s.checkpoint >= s.startBlock ? double(s.checkpoint - s.startBlock) + 1.0 : 0.0;
        const quint64 behind = *m_head - s.checkpoint;
        const QString percent = QString::number(100.0 * done / span, 'f', 1);
        return behind == 1 ? tr("%1 % (1 block behind)").arg(percent)
                           : tr("%1 % (%2 blocks behind)").arg(percent).arg(behind);
    }
    case Children:
        return factory ? QString::number(s.children) : QString();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant SourceTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SourceList::Source& s = m_list.sources.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return text(index.row(), Column(index.column()));
    case Qt::ToolTipRole:
        if (index.column() == Checkpoint)
            return tr("indexed up to block %1 from block %2 (source %3)")
                .arg(s.checkpoint)
                .arg(s.startBlock)
                .arg(s.sourceId);
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == Checkpoint || index.column() == Children)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case AddressRole:
        return s.address;
    case IsFactoryRole:
        return s.kind == SourceList::Kind::Factory;
    }
    return {};
}

QVariant SourceTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Kind:
        return tr("kind");
    case Address:
        return tr("address");
    case CreationEvent:
        return tr("creation event");
    case Checkpoint:
        return tr("checkpoint");
    case Progress:
        return tr("progress");
    case Children:
        return tr("children");
    }
    return {};
}

void SourceTableModel::applySources(const SourceList& list)
{
    const auto keys = [](const SourceList& l) {
        QStringList k;
        for (const SourceList::Source& s : l.sources)
            k << s.address + QLatin1Char('/') + s.event;
        return k;
    };
    if (keys(list) == keys(m_list)) {
        m_list = list;
        if (!m_list.sources.isEmpty())
            emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_list = list;
    endResetModel();
}

void SourceTableModel::setHead(std::optional<quint64> head)
{
    if (head == m_head)
        return;
    m_head = head;
    if (!m_list.sources.isEmpty())
        emit dataChanged(index(0, Progress), index(rowCount() - 1, Progress));
}

} // namespace forkscope::ui
