#include "NodeTableModel.h"
#include "Palette.h"
#include "engine/EngineStatus.h"

#include <QBrush>

namespace forkscope::ui {

NodeTableModel::NodeTableModel(QObject* parent) : QAbstractTableModel(parent) {}

int NodeTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int NodeTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& r = m_rows[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return r.cells.value(index.column());
    case Qt::BackgroundRole:
        if (index.column() == State)
            return QBrush(Palette::nodeState(r.state));
        return {};
    case Qt::ToolTipRole:
        if (index.column() == State)
            return Palette::nodeStateMeaning(r.state);
        return {};
    case NodeStateRole:
        return int(r.state);
    }
    return {};
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Url:
        return tr("node");
    case State:
        return tr("state");
    case Head:
        return tr("head");
    case Latency:
        return tr("latency (ms)");
    case Halvings:
        return tr("getLogs halvings");
    case Truncations:
        return tr("suspected truncations");
    case Timeouts:
        return tr("timeouts");
    case Inconsistent:
        return tr("inconsistent answers");
    case Error:
        return tr("last error");
    }
    return {};
}

QString NodeTableModel::text(int row, Column column) const
{
    return m_rows.value(row).cells.value(column);
}

QString NodeTableModel::legend()
{
    QStringList meanings;
    for (auto s : Palette::nodeStates())
        meanings << Palette::nodeStateMeaning(s);
    return meanings.join(QLatin1Char('\n')) +
           tr("\nHalvings, truncations and inconsistent answers are counted for the node the "
              "indexer reads; timeouts for every node (health polls, and the indexer's requests "
              "to its node).");
}

QList<NodeTableModel::Row> NodeTableModel::rowsOf(const engine::EngineStatus& s)
{
    QList<Row> rows;
    for (const health::NodeHealth& n : s.health.nodes) {
        // The wire's counters belong to the node the indexer reads from.
        const bool indexed = n.url == s.endpoint;
        const QString notIndexed = QStringLiteral("-");
        rows.append(
            {n.url,
             n.state,
             {n.url,
              n.state == health::NodeState::DroppingLogs && n.lastDropBlock
                  ? (n.droppedLogs == 1
                         ? tr("dropping logs (once, last at block %1)")
                         : tr("dropping logs (%1 times, last at block %2)").arg(n.droppedLogs))
                        .arg(*n.lastDropBlock)
                  : health::nodeStateName(n.state),
              n.head ? QString::number(*n.head) : tr("unknown"),
              n.latencyMs >= 0 ? QString::number(n.latencyMs) : QStringLiteral("-"),
              indexed ? QString::number(s.truncationHalvings) : notIndexed,
              indexed ? QString::number(s.suspectedTruncations) : notIndexed,
              QString::number(n.timeouts + (indexed ? s.indexerTimeouts : 0)),
              indexed ? QString::number(s.inconsistencies) : notIndexed, n.lastError}});
    }
    return rows;
}

int NodeTableModel::indexOf(const QString& url, int from) const
{
    for (int i = from; i < m_rows.size(); ++i)
        if (m_rows[i].url == url)
            return i;
    return -1;
}

void NodeTableModel::applyStatus(const engine::EngineStatus& status)
{
    if (status.health.nodes.isEmpty())
        return;
    const QList<Row> fresh = rowsOf(status);
    QStringList urls;
    for (const Row& r : fresh)
        urls << r.url;
    for (int i = int(m_rows.size()) - 1; i >= 0; --i)
        if (!urls.contains(m_rows[i].url)) {
            beginRemoveRows({}, i, i);
            m_rows.removeAt(i);
            endRemoveRows();
        }
    // Rows before i are final: each new row is found at i or later, or is new.
    for (int i = 0; i < fresh.size(); ++i) {
        const int at = indexOf(fresh[i].url, i);
        if (at < 0) {
            beginInsertRows({}, i, i);
            m_rows.insert(i, fresh[i]);
            endInsertRows();
            continue;
        }
        if (at != i) {
            beginMoveRows({}, at, at, {}, i);
            m_rows.move(at, i);
            endMoveRows();
        }
        Row& row = m_rows[i];
        int first = -1, last = -1;
        for (int c = 0; c < ColumnCount; ++c)
            if (row.cells.value(c) != fresh[i].cells.value(c)) {
                first = first < 0 ? c : first;
                last = c;
            }
        if (row.state != fresh[i].state) { // NodeStateRole is on every column
            first = 0;
            last = ColumnCount - 1;
        }
        row = fresh[i];
        if (first >= 0)
            emit dataChanged(index(i, first), index(i, last));
    }
}

} // namespace forkscope::ui
