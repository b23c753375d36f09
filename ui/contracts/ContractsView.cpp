#include "ContractsView.h"
#include "ChildTableModel.h"
#include "SourceTableModel.h"
#include "engine/EngineApi.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace forkscope::ui {

namespace {

QTableView* tableOf(QAbstractItemModel* model, const QString& name, QWidget* parent)
{
    auto* view = new QTableView(parent);
    view->setObjectName(name);
    view->setModel(model);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    // In the model's order (children as created) until a header is clicked.
    view->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    view->setSortingEnabled(true);
    view->horizontalHeader()->setStretchLastSection(true);
    view->verticalHeader()->hide();
    // Addresses and hashes are how rows are told apart: never cut in the middle.
    view->setTextElideMode(Qt::ElideNone);
    return view;
}

// A source matches the filter by its own cells, or, a factory, by one of its children: the
// factory stays listed (and selected) while the filter finds one of its children.
class SourceFilter : public QSortFilterProxyModel
{
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override
    {
        if (QSortFilterProxyModel::filterAcceptsRow(row, parent))
            return true;
        const auto* model = static_cast<const SourceTableModel*>(sourceModel());
        const engine::SourceList& list = model->sources();
        if (row >= list.sources.size() ||
            list.sources.at(row).kind != engine::SourceList::Kind::Factory)
            return false;
        const QString factory = list.sources.at(row).address;
        const QRegularExpression& text = filterRegularExpression();
        for (const engine::SourceList::Child& c : list.children)
            if (c.factory == factory &&
                (text.match(c.child).hasMatch() || text.match(c.txHash).hasMatch()))
                return true;
        return false;
    }
};

QSortFilterProxyModel* filterOf(QAbstractItemModel* model, QObject* parent,
                                QSortFilterProxyModel* proxy = nullptr)
{
    if (!proxy)
        proxy = new QSortFilterProxyModel(parent);
    proxy->setSourceModel(model);
    proxy->setFilterKeyColumn(-1); // any column
    proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    return proxy;
}

} // namespace

ContractsView::ContractsView(QWidget* parent)
    : QWidget(parent), m_filter(new QLineEdit(this)),
      m_addContract(new QPushButton(tr("Add contract..."), this)),
      m_addFactory(new QPushButton(tr("Add factory..."), this)),
      m_sources(new SourceTableModel(this)),
      m_sourceFilter(filterOf(m_sources, this, new SourceFilter(this))),
      m_sourceView(tableOf(m_sourceFilter, QStringLiteral("sourceTable"), this)),
      m_children(new ChildTableModel(this)), m_childFilter(filterOf(m_children, this)),
      m_childView(tableOf(m_childFilter, QStringLiteral("childTable"), this)),
      m_childTitle(new QLabel(this)), m_status(new QLabel(this)), m_refresh(new QTimer(this))
{
    m_filter->setPlaceholderText(tr("Filter by address, event or transaction"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setObjectName(QStringLiteral("contractsFilter"));
    m_addContract->setObjectName(QStringLiteral("addContract"));
    m_addFactory->setObjectName(QStringLiteral("addFactory"));
    m_childTitle->setObjectName(QStringLiteral("childTitle"));
    m_status->setObjectName(QStringLiteral("contractsStatus"));
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_childView->setToolTip(tr("The selected factory's children, in the order they were "
                               "created: each is indexed from its creation block"));

    auto* top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_addContract);
    top->addWidget(m_addFactory);
    auto* lower = new QWidget(this);
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(m_childTitle);
    lowerLayout->addWidget(m_childView, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_sourceView);
    split->addWidget(lower);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    layout->addWidget(m_status);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& text) {
        // As typed: SourceFilter reads the pattern back for the children.
        m_sourceFilter->setFilterRegularExpression(QRegularExpression(
            QRegularExpression::escape(text), QRegularExpression::CaseInsensitiveOption));
        m_childFilter->setFilterFixedString(text);
        reselectFactory();
        updateStatus();
    });
    connect(m_sourceView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ContractsView::selectionChanged);
    connect(m_addContract, &QPushButton::clicked, this, &ContractsView::addContractRequested);
    connect(m_addFactory, &QPushButton::clicked, this, &ContractsView::addFactoryRequested);
    m_refresh->setInterval(kRefreshMs);
    connect(m_refresh, &QTimer::timeout, this, [this] {
        if (isVisible())
            emit refreshRequested();
        else
            m_refresh->stop(); // started again when shown
    });
    updateStatus();
}

void ContractsView::connectTo(engine::EngineApi* host)
{
    connect(this, &ContractsView::refreshRequested, host, &engine::EngineApi::requestSourceList);
    connect(host, &engine::EngineApi::sourceListAvailable, this, &ContractsView::applySources);
    connect(host, &engine::EngineApi::statusAvailable, this, &ContractsView::applyStatus);
}

void ContractsView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    emit refreshRequested();
    m_refresh->start();
}

void ContractsView::applySources(const engine::SourceList& list)
{
    m_sources->applySources(list);
    m_children->applySources(list);
    // A factory's children are what a user comes for: the first factory is selected until
    // they choose another row.
    if (m_children->factory().isEmpty() && !m_sourceView->selectionModel()->hasSelection())
        for (int row = 0; row < m_sourceFilter->rowCount(); ++row)
            if (m_sourceFilter->index(row, 0).data(SourceTableModel::IsFactoryRole).toBool()) {
                m_sourceView->selectRow(row);
                break;
            }
    reselectFactory();
    if (!m_sized && m_sources->rowCount() > 0) {
        m_sized = true; // once: a refresh must not move columns under the cursor
        m_sourceView->resizeColumnsToContents();
        m_childView->resizeColumnsToContents();
    }
    updateStatus();
}

void ContractsView::applyStatus(const engine::EngineStatus& status)
{
    m_sources->setHead(status.headBlock);
}

void ContractsView::selectionChanged()
{
    const QModelIndexList rows = m_sourceView->selectionModel()->selectedRows();
    // A row the filter hides loses its selection, not its children: they stay listed (and
    // filtered) until another source is selected.
    if (rows.isEmpty())
        return;
    QString factory;
    if (rows.first().data(SourceTableModel::IsFactoryRole).toBool())
        factory = rows.first().data(SourceTableModel::AddressRole).toString();
    m_children->setFactory(factory);
    if (m_sized)
        m_childView->resizeColumnsToContents();
    updateStatus();
}

void ContractsView::reselectFactory()
{
    // The factory whose children are listed is the selected row again once the filter shows
    // it.
    const QString factory = m_children->factory();
    if (factory.isEmpty() || m_sourceView->selectionModel()->hasSelection())
        return;
    for (int row = 0; row < m_sourceFilter->rowCount(); ++row) {
        const QModelIndex i = m_sourceFilter->index(row, 0);
        if (i.data(SourceTableModel::IsFactoryRole).toBool() &&
            i.data(SourceTableModel::AddressRole).toString() == factory) {
            m_sourceView->selectRow(row);
            return;
        }
    }
}

QString ContractsView::statusText() const
{
    return m_status->text();
}

void ContractsView::updateStatus()
{
    const engine::SourceList& list = m_sources->sources();
    const QString factory = m_children->factory();
    if (factory.isEmpty()) {
        m_childTitle->setText(tr("Select a factory to list its children."));
    } else {
        qint64 total = 0;
        for (const engine::SourceList::Source& s : list.sources)
            if (s.address == factory && s.kind == engine::SourceList::Kind::Factory)
                total = s.children;
        m_childTitle->setText(
            tr("Children of factory %1: %2%3")
                .arg(factory)
                .arg(total)
                .arg(m_childFilter->rowCount() != m_children->rowCount()
                         ? tr(" (%1 match the filter)").arg(m_childFilter->rowCount())
                         : QString()));
    }
    QString status;
    if (!list.error.isEmpty())
        status = tr("The sources could not be read: %1").arg(list.error);
    else if (list.environmentId.isEmpty())
        status = tr("No environment is live yet.");
    else
        status =
            list.sources.size() == 1
                ? tr("Environment %1: 1 source").arg(list.environmentId)
                : tr("Environment %1: %2 sources").arg(list.environmentId).arg(list.sources.size());
    if (list.childrenTruncated)
        status += tr("; the first %1 children are listed").arg(engine::SourceList::kMaxChildren);
    m_status->setText(status);
}

} // namespace forkscope::ui
