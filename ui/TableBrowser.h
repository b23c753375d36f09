#pragma once

#include "engine/EngineStatus.h"
#include "engine/TablePage.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

class PagedTableModel;

// A sortable, filterable view of one engine table (transfers, balances, backfill ledger),
// loaded lazily a page at a time. While only the first page is loaded and the view is
// visible, it refreshes itself every few seconds so the newest rows show up.
class TableBrowser : public QWidget
{
    Q_OBJECT
public:
    TableBrowser(engine::TableRequest::Kind kind, const QString& filterHint,
                 QWidget* parent = nullptr);

    PagedTableModel* model() const { return m_model; }
    QTableView* view() const { return m_view; }
    QLineEdit* filterEdit() const { return m_filter; }
    QString statusText() const;
    // Pages asked of and answered by `host` (the model takes only the pages it asked for).
    void connectTo(engine::EngineApi* host);
    // The context menu's actions: whole values, not the elided display.
    void copyCell(const QModelIndex& index) const;
    void copyRow(int row) const;
    // The live environment's reorgs: a row whose block one of them rewrote offers "Open in
    // reorg diff" (the transfers' block, the balances' last update).
    void setReorgs(const QList<engine::ReorgMark>& reorgs);
    // The reorgs that rewrote `block`: fork < block <= fork + depth (newest first).
    static QList<engine::ReorgMark> reorgsRewriting(const QList<engine::ReorgMark>& reorgs,
                                                    qint64 block);
    // The context menu's actions for a cell, by text (for tests and the menu alike).
    QList<QAction*> contextActions(const QModelIndex& index, QObject* parent);
    // Whether the 3 s refresh may run now: not while the user holds a selection or has
    // scrolled away from the top, where new rows would shift what they are looking at.
    bool autoRefreshAllowed() const;

signals:
    void reorgDiffRequested(qint64 reorgId);

protected:
    void showEvent(QShowEvent* event) override;

private:
    // Columns fit their contents once, when rows are first on screen; after that the
    // user's widths stay (a refresh must not move columns under the cursor).
    void fitColumnsOnce();
    void updateStatus();
    // Refresh by the button: rows come back in place, and the selected row is found again
    // by its content wherever it moved.
    void reloadKeepingSelection();
    int blockColumn() const;

    PagedTableModel* m_model;
    QLineEdit* m_filter;
    QTableView* m_view;
    QLabel* m_status;
    QTimer* m_filterDelay;
    QTimer* m_autoRefresh;
    bool m_sized = false; // columns fitted to the first rows
    QList<engine::ReorgMark> m_reorgs;
    QStringList m_reselect; // the selected row's cells, to find after a reload
};

} // namespace forkscope::ui
