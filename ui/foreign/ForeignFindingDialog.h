#pragma once

#include "foreign/ForeignBlockView.h"
#include "foreign/ForeignFinding.h"

#include <QDialog>

class QLabel;
class QTableWidget;

namespace forkscope::ui {

// One finding of a watched indexer next to what the chain holds, a sibling of the reorg diff
// view: the finding said in words, then the block's rows as the indexer stored them beside
// the node's Transfers of the audited contracts in that block (block, transaction, log
// index, contract, from, to, value, block hash). The finding's own log index is selected on
// both sides.
class ForeignFindingDialog : public QDialog
{
    Q_OBJECT
public:
    enum Column {
        LogColumn,
        TxColumn,
        ContractColumn,
        FromColumn,
        ToColumn,
        ValueColumn,
        BlockHashColumn,
        RowColumn,
        ColumnCount
    };

    ForeignFindingDialog(const foreign::ForeignFinding& finding,
                         const foreign::ForeignBlockView& view, QWidget* parent = nullptr);
    QTableWidget* rowsTable() const { return m_rows; }
    QTableWidget* chainTable() const { return m_chain; }
    QString summary() const;

private:
    QLabel* m_summary;
    QTableWidget* m_rows;
    QTableWidget* m_chain;
};

} // namespace forkscope::ui
