#pragma once

#include "foreign/ForeignWatchSnapshot.h"

#include <QAbstractTableModel>

namespace forkscope::ui {

// A watch's current findings (newest blocks first, as the snapshot lists them): one row per
// finding, replaced as a whole by each snapshot of a check that ran. A check that could not
// run leaves the rows as they were: they are what the last check found.
class ForeignFindingsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        KindColumn,
        BlockColumn,
        LogColumn,
        TxColumn,
        ContractColumn,
        RowColumn,
        DetailColumn,
        ColumnCount
    };

    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void apply(const forkscope::foreign::ForeignWatchSnapshot& snapshot);
    const foreign::ForeignFinding& finding(int row) const { return m_findings.at(row); }

private:
    QList<foreign::ForeignFinding> m_findings;
};

} // namespace forkscope::ui
