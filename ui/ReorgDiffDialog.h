#pragma once

#include "engine/EngineStatus.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QTableWidget;

namespace forkscope::ui {

// What one rollback undid: fork point, depth, reason, and every removed transfer, dropped
// or retracted outbox row and changed balance (before -> after), from reorg_diff_items.
// A summary says what it amounts to and whether the re-indexed chain has the transfers
// again; a filter shows one kind at a time. Amounts read in the token's units where its
// metadata came with the diff, raw units on hover.
class ReorgDiffDialog : public QDialog
{
    Q_OBJECT
public:
    // The table's columns.
    enum Column {
        KindColumn,
        BlockColumn,
        LogColumn,
        TxHashColumn,
        ContractColumn,
        HolderColumn,
        ToColumn,
        ValueColumn,
        AgainColumn,
        BeforeColumn,
        AfterColumn,
    };

    explicit ReorgDiffDialog(const engine::ReorgDiff& diff, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    QString summary() const;
    QString counts() const;
    QComboBox* kindFilter() const { return m_filter; }

    // "12 transfers removed (12 back in the re-indexed chain), 12 outbox rows dropped, 0
    // delivered rows retracted, 7 holders' balances changed". Pure, for the tests.
    // "yes", "yes, in another transaction" or "no": the re-indexed chain column.
    static QString againText(engine::ReorgDiff::Item::Again again);
    static QString countsText(const engine::ReorgDiff& diff);
    // The filter's kinds: "" (all), or a kind prefix.
    static QStringList filterPrefixes();

private:
    void applyFilter(int choice);

    QLabel* m_summary;
    QLabel* m_counts;
    QComboBox* m_filter;
    QTableWidget* m_table;
    QStringList m_kinds; // per row
};

} // namespace forkscope::ui
