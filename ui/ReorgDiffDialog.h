#pragma once

#include "engine/EngineStatus.h"

#include <QDialog>

class QLabel;
class QTableWidget;

namespace forkscope::ui {

// What one rollback undid: fork point, depth, reason, and every removed transfer, dropped
// or retracted outbox row and changed balance (before -> after), from reorg_diff_items.
class ReorgDiffDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ReorgDiffDialog(const engine::ReorgDiff& diff, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    QString summary() const;

private:
    QLabel* m_summary;
    QTableWidget* m_table;
};

} // namespace forkscope::ui
