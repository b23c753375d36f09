#include "EnvironmentListModel.h"
#include "widgets/LocalTime.h"

namespace forkscope::ui {

EnvironmentListModel::EnvironmentListModel(QObject* parent) : QAbstractTableModel(parent) {}

int EnvironmentListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int EnvironmentListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString EnvironmentListModel::cell(const engine::EngineStatus::EnvironmentEntry& e,
                                   int column) const
{
    switch (column) {
    case Id:
        return e.id;
    case ChainId:
        return QString::number(e.chainId);
    case Created:
        return LocalTime::format(e.createdAt);
    case State:
        return e.archivedAt.isEmpty() ? tr("live")
                                      : tr("archived %1").arg(LocalTime::format(e.archivedAt));
    }
    return {};
}

QVariant EnvironmentListModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& e = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return cell(e, index.column());
    case Qt::ToolTipRole: // local on screen, UTC on hover
        if (index.column() == Created)
            return LocalTime::utc(e.createdAt);
        if (index.column() == State && !e.archivedAt.isEmpty())
            return tr("archived %1").arg(LocalTime::utc(e.archivedAt));
        return {};
    case ArchivedRole:
        return !e.archivedAt.isEmpty();
    }
    return {};
}

QVariant EnvironmentListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Id:
        return tr("environment");
    case ChainId:
        return tr("chain id");
    case Created:
        return tr("created");
    case State:
        return tr("state");
    }
    return {};
}

QString EnvironmentListModel::environmentId(int row) const
{
    return m_rows.value(row).id;
}

bool EnvironmentListModel::isArchived(const QString& environmentId) const
{
    for (const auto& e : m_rows)
        if (e.id == environmentId)
            return !e.archivedAt.isEmpty();
    return false;
}

QString EnvironmentListModel::text(int row, Column column) const
{
    return row >= 0 && row < m_rows.size() ? cell(m_rows[row], column) : QString();
}

int EnvironmentListModel::indexOf(const QString& id, int from) const
{
    for (int i = from; i < m_rows.size(); ++i)
        if (m_rows[i].id == id)
            return i;
    return -1;
}

void EnvironmentListModel::applyStatus(const engine::EngineStatus& status)
{
    if (!status.environments.isEmpty())
        setEnvironments(status.environments);
}

void EnvironmentListModel::setEnvironments(
    const QList<engine::EngineStatus::EnvironmentEntry>& environments)
{
    if (environments == m_rows)
        return;
    QStringList ids;
    for (const auto& e : environments)
        ids << e.id;
    for (int i = int(m_rows.size()) - 1; i >= 0; --i)
        if (!ids.contains(m_rows[i].id)) {
            beginRemoveRows({}, i, i);
            m_rows.removeAt(i);
            endRemoveRows();
        }
    // Rows before i are final: each entry is found at i or later, or is new.
    for (int i = 0; i < environments.size(); ++i) {
        const int at = indexOf(environments[i].id, i);
        if (at < 0) {
            beginInsertRows({}, i, i);
            m_rows.insert(i, environments[i]);
            endInsertRows();
            continue;
        }
        if (at != i) {
            beginMoveRows({}, at, at, {}, i);
            m_rows.move(at, i);
            endMoveRows();
        }
        int first = -1, last = -1;
        for (int c = 0; c < ColumnCount; ++c)
            if (cell(m_rows[i], c) != cell(environments[i], c)) {
                first = first < 0 ? c : first;
                last = c;
            }
        if (m_rows[i].archivedAt.isEmpty() != environments[i].archivedAt.isEmpty()) {
            first = 0; // ArchivedRole is on every column
            last = ColumnCount - 1;
        }
        m_rows[i] = environments[i];
        if (first >= 0)
            emit dataChanged(index(i, first), index(i, last));
    }
}

} // namespace forkscope::ui
