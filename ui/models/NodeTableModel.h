#pragma once

#include "health/NodeState.h"

#include <QAbstractTableModel>
#include <QStringList>

namespace forkscope::engine {
struct EngineStatus;
}

namespace forkscope::ui {

// The Nodes dock: one row per watched node (keyed by URL, in the health snapshot's order),
// its state coloured as in the Palette. Each snapshot updates the rows in place: changed
// cells are reported with dataChanged, rows are inserted, moved or removed only when the set
// of nodes changes, so a selection (or a scroll position) survives every refresh.
class NodeTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Url,
        State,
        Head,
        Latency,
        Halvings,
        Truncations,
        Timeouts,
        Inconsistent,
        Error,
        ColumnCount
    };
    // The row's health::NodeState as an int, on every column.
    static constexpr int NodeStateRole = Qt::UserRole + 1;

    explicit NodeTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The cell's text (what the view shows), for tests and callers without an index.
    QString text(int row, Column column) const;
    // What the colours and counters mean (the view's tooltip).
    static QString legend();

public slots:
    // A snapshot without nodes says nothing about them: the rows stay as they are.
    void applyStatus(const forkscope::engine::EngineStatus& status);

private:
    struct Row
    {
        QString url;
        health::NodeState state = health::NodeState::Offline;
        QStringList cells; // ColumnCount texts
    };
    static QList<Row> rowsOf(const engine::EngineStatus& s);
    int indexOf(const QString& url, int from) const;

    QList<Row> m_rows;
};

} // namespace forkscope::ui
