#pragma once

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

private:
    void updateStatus();

    PagedTableModel* m_model;
    QLineEdit* m_filter;
    QTableView* m_view;
    QLabel* m_status;
    QTimer* m_filterDelay;
    QTimer* m_autoRefresh;
    bool m_sized = false; // columns fitted to the first rows
};

} // namespace forkscope::ui
