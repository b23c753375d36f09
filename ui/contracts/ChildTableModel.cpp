#include "ChildTableModel.h"

namespace forkscope::ui {

using engine::SourceList;

namespace {

bool sameChild(const SourceList::Child& a, const SourceList::Child& b)
{
    return a.child == b.child && a.block == b.block && a.logIndex == b.logIndex &&
           a.txHash == b.txHash;
}

} // namespace

ChildTableModel::ChildTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int ChildTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ChildTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString ChildTableModel::text(int row, Column column) const
{
    if (row < 0 || row >= m_rows.size())
        return {};
    const SourceList::Child& c = m_rows.at(row);
    switch (column) {
    case Child:
        return c.child;
    case CreationBlock:
        return QString::number(c.block);
    case LogIndex:
        return QString::number(c.logIndex);
    case CreatingTransaction:
        return c.txHash;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant ChildTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role == Qt::DisplayRole)
        return text(index.row(), Column(index.column()));
    if (role == Qt::TextAlignmentRole &&
        (index.column() == CreationBlock || index.column() == LogIndex))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ChildTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Child:
        return tr("child");
    case CreationBlock:
        return tr("creation block");
    case LogIndex:
        return tr("log index");
    case CreatingTransaction:
        return tr("creating transaction");
    }
    return {};
}

void ChildTableModel::applySources(const SourceList& list)
{
    m_list = list;
    select();
}

void ChildTableModel::setFactory(const QString& factory)
{
    if (factory == m_factory)
        return;
    m_factory = factory;
    select();
}

void ChildTableModel::select()
{
    QList<SourceList::Child> rows;
    if (!m_factory.isEmpty())
        for (const SourceList::Child& c : std::as_const(m_list.children))
            if (c.factory == m_factory)
                rows.append(c);
    if (std::equal(rows.cbegin(), rows.cend(), m_rows.cbegin(), m_rows.cend(), sameChild))
        return;
    // Children created since the last snapshot: appended, the rows above (and a selection
    // among them) left as they are.
    if (rows.size() > m_rows.size() &&
        std::equal(m_rows.cbegin(), m_rows.cend(), rows.cbegin(), sameChild)) {
        beginInsertRows({}, int(m_rows.size()), int(rows.size()) - 1);
        m_rows = rows;
        endInsertRows();
        return;
    }
    beginResetModel();
    m_rows = rows;
    endResetModel();
}

} // namespace forkscope::ui
