#pragma once

#include "forktree/ForkBlockRows.h"

#include <QAbstractTableModel>

namespace forkscope::ui {

// The rows of the block clicked in the fork tree: a canonical block's stored logs and
// Transfers, or what a rollback removed with an orphaned block and whether each came back.
class ForkBlockRowsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Kind, Transaction, LogIndex, Contract, From, To, Value, CameBack, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;

    void setBlock(const forktree::ForkBlockRows& block);
    void clear();
    const forktree::ForkBlockRows& block() const { return m_block; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    static QString kindName(forktree::ForkBlockRow::Kind kind);

private:
    forktree::ForkBlockRows m_block;
};

} // namespace forkscope::ui
