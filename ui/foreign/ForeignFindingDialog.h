#pragma once

#include "engine/EngineStatus.h"
#include "foreign/ForeignBlockView.h"
#include "foreign/ForeignFinding.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTableWidget;

namespace forkscope::ui {

// One finding of a watched indexer next to what the chain holds, a sibling of the reorg diff
// view: the finding said in words, then the block's rows as the indexer stored them beside
// the node's Transfers of the audited contracts in that block (block, transaction, log
// index, contract, from, to, value, block hash). The finding's own log index is selected on
// both sides. When the environment's own indexer rolled that block back, the reorg is named
// and "Open reorg #N" asks for its diff, which opens in the reorg diff view.
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

    // `replacedBy`: the environment's rollback that replaced the finding's block, if any.
    ForeignFindingDialog(const foreign::ForeignFinding& finding,
                         const foreign::ForeignBlockView& view,
                         const std::optional<engine::ReorgMark>& replacedBy = {},
                         QWidget* parent = nullptr);
    QTableWidget* rowsTable() const { return m_rows; }
    QTableWidget* chainTable() const { return m_chain; }
    // nullptr when no rollback of the environment replaced the block.
    QPushButton* openReorgButton() const { return m_openReorg; }
    QString summary() const;

signals:
    void reorgDiffRequested(qint64 reorgId);

private:
    QLabel* m_summary;
    QTableWidget* m_rows;
    QTableWidget* m_chain;
    QPushButton* m_openReorg = nullptr;
};

} // namespace forkscope::ui
