#pragma once

#include "engine/SourceList.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

class ChildTableModel;
class SourceTableModel;

// The Contracts tab: every source of the live environment (plain contracts and factories)
// with its checkpoint, progress and children count, a filter line over them and over the
// children, and the selected factory's children with their creation blocks and creating
// transactions. It asks for a snapshot when shown and every few seconds while visible
// (refreshRequested); it never reads the store itself.
class ContractsView : public QWidget
{
    Q_OBJECT
public:
    explicit ContractsView(QWidget* parent = nullptr);

    // Snapshots asked of and answered by `host`, the head from its status.
    void connectTo(engine::EngineApi* host);

    SourceTableModel* sources() const { return m_sources; }
    ChildTableModel* children() const { return m_children; }
    QTableView* sourceView() const { return m_sourceView; }
    QTableView* childView() const { return m_childView; }
    QLineEdit* filterEdit() const { return m_filter; }
    QPushButton* addContractButton() const { return m_addContract; }
    QPushButton* addFactoryButton() const { return m_addFactory; }
    QString statusText() const;
    // How often it asks again while visible.
    static constexpr int kRefreshMs = 3000;

public slots:
    void applySources(const forkscope::engine::SourceList& list);
    void applyStatus(const forkscope::engine::EngineStatus& status);

signals:
    void refreshRequested();
    void addContractRequested();
    void addFactoryRequested();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void selectionChanged();
    void reselectFactory();
    void updateStatus();

    QLineEdit* m_filter;
    QPushButton* m_addContract;
    QPushButton* m_addFactory;
    SourceTableModel* m_sources;
    QSortFilterProxyModel* m_sourceFilter;
    QTableView* m_sourceView;
    ChildTableModel* m_children;
    QSortFilterProxyModel* m_childFilter;
    QTableView* m_childView;
    QLabel* m_childTitle;
    QLabel* m_status;
    QTimer* m_refresh;
    bool m_sized = false;
};

} // namespace forkscope::ui
