#include "TableBrowser.h"
#include "engine/EngineApi.h"
#include "models/PagedTableModel.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
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
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

    // Type, pause, then one query: not one per keystroke.
    m_filterDelay->setSingleShot(true);
    m_filterDelay->setInterval(300);
    connect(m_filter, &QLineEdit::textChanged, m_filterDelay, qOverload<>(&QTimer::start));
    connect(m_filterDelay, &QTimer::timeout, this,
            [this] { m_model->setFilter(m_filter->text()); });
    connect(refresh, &QPushButton::clicked, m_model, &PagedTableModel::reload);
    // Columns fit their contents once the first rows are in; after that the user's widths
    // stay (a refresh must not move columns under the cursor).
    connect(m_model, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_sized) {
            m_sized = true;
            m_view->resizeColumnsToContents();
        }
    });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
        const QModelIndex at = m_view->indexAt(pos);
        if (!at.isValid())
            return;
        QMenu menu(this);
        menu.addAction(tr("Copy value"), this, [this, at] { copyCell(at); });
        menu.addAction(tr("Copy row"), this, [this, at] { copyRow(at.row()); });
        menu.exec(m_view->viewport()->mapToGlobal(pos));
    });
    connect(m_model, &PagedTableModel::loadingChanged, this, &TableBrowser::updateStatus);
    connect(m_model, &QAbstractItemModel::modelReset, this, &TableBrowser::updateStatus);
    m_autoRefresh->setInterval(3000);
    connect(m_autoRefresh, &QTimer::timeout, this, [this] {
        if (isVisible() && !m_model->isLoading() &&
            m_model->rowCount() <= PagedTableModel::kPageSize)
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

QString TableBrowser::statusText() const
{
    return m_status->text();
}

void TableBrowser::updateStatus()
{
    QString text;
    if (!m_model->lastError().isEmpty())
        text = tr("could not load: %1").arg(m_model->lastError());
    else if (m_model->isLoading())
        text = tr("%n row(s) loaded, loading more...", nullptr, m_model->rowCount());
    else if (m_model->atEnd())
        text = tr("%n row(s)", nullptr, m_model->rowCount());
    else
        text = tr("%n row(s) loaded; scroll for more", nullptr, m_model->rowCount());
    if (!m_model->filter().isEmpty())
        text += tr(" matching \"%1\"").arg(m_model->filter());
    m_status->setText(text);
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
