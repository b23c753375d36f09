#pragma once

#include "engine/SourceList.h"

#include <QAbstractTableModel>
#include <optional>

namespace forkscope::ui {

// The Contracts tab's sources: one row per contract or factory the live environment indexes,
// with its checkpoint, how far that is towards the node's head, and a factory's children
// count. Read-only, fed whole snapshots (engine::SourceList); a snapshot with the same
// sources updates the cells in place, so a selection survives every refresh.
class SourceTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Kind, Address, CreationEvent, Checkpoint, Progress, Children, ColumnCount };
    // The row's 0x address, on every column; and whether it is a factory.
    static constexpr int AddressRole = Qt::UserRole + 1;
    static constexpr int IsFactoryRole = Qt::UserRole + 2;

    explicit SourceTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The cell's text, as the view shows it.
    QString text(int row, Column column) const;
    const engine::SourceList& sources() const { return m_list; }

public slots:
    void applySources(const forkscope::engine::SourceList& list);
    // The node's head, for the progress column; nullopt: not known.
    void setHead(std::optional<quint64> head);

private:
    engine::SourceList m_list;
    std::optional<quint64> m_head;
};

} // namespace forkscope::ui
