#include "TableBrowser.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"
#include "models/PagedTableModel.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScrollBar>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace forkscope::ui {

TableBrowser::TableBrowser(engine::TableRequest::Kind kind, const QString& filterHint,
                           QWidget* parent)
    : QWidget(parent), m_model(new PagedTableModel(kind, this)), m_filter(new QLineEdit(this)),
      m_view(new QTableView(this)), m_status(new QLabel(this)), m_filterDelay(new QTimer(this)),
      m_autoRefresh(new QTimer(this))
{
    m_filter->setPlaceholderText(filterHint);
    m_filter->setClearButtonEnabled(true);
    m_filter->setObjectName(QStringLiteral("filter"));
    auto* refresh = new QPushButton(tr("Refresh"), this);
    refresh->setToolTip(tr("Load the table again from the first page"));
    m_status->setObjectName(QStringLiteral("status"));

    m_view->setModel(m_model);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(0, Qt::DescendingOrder); // newest first (asks the model to sort)
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setAlternatingRowColors(true);
    // Elided in the middle, as shortHex is: a narrowed column keeps one ellipsis and the end.
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

    // Type, pause, then one query: not one per keystroke.
    m_filterDelay->setSingleShot(true);
    m_filterDelay->setInterval(300);
    connect(m_filter, &QLineEdit::textChanged, m_filterDelay, qOverload<>(&QTimer::start));
    connect(m_filterDelay, &QTimer::timeout, this,
            [this] { m_model->setFilter(m_filter->text()); });
    connect(refresh, &QPushButton::clicked, this, &TableBrowser::reloadKeepingSelection);
    // Only on screen: measured hidden (a tab not shown yet), a column can come out narrower
    // than its text, and a shortened hash then loses its end too ("0x47d7……").
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &TableBrowser::fitColumnsOnce);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex at = m_view->indexAt(pos);
        if (!at.isValid())
            return;
        QMenu menu(this);
        menu.addActions(contextActions(at, &menu));
        menu.exec(m_view->viewport()->mapToGlobal(pos));
    });
    connect(m_model, &PagedTableModel::loadingChanged, this, &TableBrowser::updateStatus);
    connect(m_model, &PagedTableModel::loadingChanged, this, [this] {
        if (m_model->isLoading() || m_reselect.isEmpty())
            return;
        const QStringList wanted = std::exchange(m_reselect, {});
        for (int r = 0; r < m_model->rowCount(); ++r) {
            QStringList cells;
            for (int c = 0; c < m_model->columnCount(); ++c)
                cells << m_model->fullText(m_model->index(r, c));
            if (cells == wanted) {
                m_view->selectRow(r);
                m_view->scrollTo(m_model->index(r, 0));
                return;
            }
        }
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, &TableBrowser::updateStatus);
    m_autoRefresh->setInterval(3000);
    connect(m_autoRefresh, &QTimer::timeout, this, [this] {
        if (isVisible() && !m_model->isLoading() &&
            m_model->rowCount() <= PagedTableModel::kPageSize && autoRefreshAllowed())
            m_model->reload();
    });
    m_autoRefresh->start();

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(refresh);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
    updateStatus();
}

void TableBrowser::fitColumnsOnce()
{
    if (m_sized || !m_view->isVisible() || m_model->rowCount() == 0)
        return;
    m_sized = true;
    m_view->resizeColumnsToContents();
}

void TableBrowser::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    fitColumnsOnce();
}

QString TableBrowser::statusText() const
{
    return m_status->text();
}

void TableBrowser::updateStatus()
{
    QString text;
    const QString rows = engine::text::count(m_model->rowCount(), tr("row"), tr("rows"));
    if (!m_model->lastError().isEmpty())
        text = tr("could not load: %1").arg(m_model->lastError());
    else if (m_model->isLoading())
        text = tr("%1 loaded, loading more...").arg(rows);
    else if (m_model->atEnd())
        text = rows;
    else
        text = tr("%1 loaded; scroll for more").arg(rows);
    if (!m_model->filter().isEmpty())
        text += tr(" matching \"%1\"").arg(m_model->filter());
    m_status->setText(text);
}

bool TableBrowser::autoRefreshAllowed() const
{
    const QItemSelectionModel* selection = m_view->selectionModel();
    return !(selection && selection->hasSelection()) && m_view->verticalScrollBar()->value() == 0;
}

void TableBrowser::reloadKeepingSelection()
{
    m_reselect.clear();
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    if (!rows.isEmpty())
        for (int c = 0; c < m_model->columnCount(); ++c)
            m_reselect << m_model->fullText(m_model->index(rows.first().row(), c));
    m_model->reload();
}

int TableBrowser::blockColumn() const
{
    switch (m_model->kind()) {
    case engine::TableRequest::Kind::Transfers:
        return 0; // block
    case engine::TableRequest::Kind::Balances:
        return 3; // updated at block
    case engine::TableRequest::Kind::Backfill:
        return -1;
    }
    return -1;
}

void TableBrowser::setReorgs(const QList<engine::ReorgMark>& reorgs)
{
    m_reorgs = reorgs;
}

QList<engine::ReorgMark> TableBrowser::reorgsRewriting(const QList<engine::ReorgMark>& reorgs,
                                                       qint64 block)
{
    QList<engine::ReorgMark> out;
    for (const engine::ReorgMark& m : reorgs)
        if (block > m.forkBlock && block <= m.forkBlock + m.depth)
            out.append(m);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id > b.id; });
    return out;
}

QList<QAction*> TableBrowser::contextActions(const QModelIndex& at, QObject* parent)
{
    QList<QAction*> actions;
    auto* copyValue = new QAction(tr("Copy value"), parent);
    connect(copyValue, &QAction::triggered, this, [this, at] { copyCell(at); });
    auto* copyWholeRow = new QAction(tr("Copy row"), parent);
    connect(copyWholeRow, &QAction::triggered, this, [this, at] { copyRow(at.row()); });
    actions << copyValue << copyWholeRow;
    bool ok = false;
    const qint64 block =
        blockColumn() < 0
            ? -1
            : m_model->fullText(m_model->index(at.row(), blockColumn())).toLongLong(&ok);
    if (!ok)
        return actions;
    // At most a few: the newest reorgs that rewrote this row's block.
    for (const engine::ReorgMark& m : reorgsRewriting(m_reorgs, block).mid(0, 3)) {
        auto* open = new QAction(tr("Open in reorg diff (reorg #%1, depth %2 at block %3)")
                                     .arg(m.id)
                                     .arg(m.depth)
                                     .arg(m.forkBlock),
                                 parent);
        const qint64 id = m.id;
        connect(open, &QAction::triggered, this, [this, id] { emit reorgDiffRequested(id); });
        actions << open;
    }
    return actions;
}

void TableBrowser::copyCell(const QModelIndex& index) const
{
    QGuiApplication::clipboard()->setText(m_model->fullText(index));
}

void TableBrowser::copyRow(int row) const
{
    // Tab-separated whole values, with the header's names: pastes into a spreadsheet.
    QStringList cells;
    for (int c = 0; c < m_model->columnCount(); ++c)
        cells << m_model->fullText(m_model->index(row, c));
    QGuiApplication::clipboard()->setText(cells.join(QLatin1Char('\t')));
}

void TableBrowser::connectTo(engine::EngineApi* host)
{
    connect(m_model, &PagedTableModel::pageRequested, host, &engine::EngineApi::requestTablePage);
    connect(host, &engine::EngineApi::tablePageAvailable, m_model, &PagedTableModel::applyPage);
}

} // namespace forkscope::ui
