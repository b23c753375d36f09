#pragma once

#include "engine/SourceList.h"

#include <QAbstractTableModel>

namespace forkscope::ui {

// The children of one factory (the one selected in the Contracts tab), in creation order:
// each with its creation block, the creation event's log index and the transaction that
// created it. Read-only, fed whole snapshots; rows are replaced only when the factory or
// its children change.
class ChildTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Child, CreationBlock, LogIndex, CreatingTransaction, ColumnCount };

    explicit ChildTableModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    QString text(int row, Column column) const;
    QString factory() const { return m_factory; }

public slots:
    void applySources(const forkscope::engine::SourceList& list);
    // Shows the children of `factory` (0x); empty: none.
    void setFactory(const QString& factory);

private:
    void select();

    engine::SourceList m_list;
    QString m_factory;
    QList<engine::SourceList::Child> m_rows;
};

} // namespace forkscope::ui
