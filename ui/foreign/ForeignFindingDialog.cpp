#include "ForeignFindingDialog.h"
#include "ShortHex.h"

#include <QDialogButtonBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace forkscope::ui {

namespace {

QTableWidgetItem* cell(const QString& text)
{
    auto* item = new QTableWidgetItem(shortHex(text));
    item->setToolTip(text);
    return item;
}

QTableWidget* eventTable(const QList<foreign::ForeignBlockView::Event>& events,
                         const std::optional<std::uint64_t>& selected, QWidget* parent)
{
    auto* t = new QTableWidget(int(events.size()), ForeignFindingDialog::ColumnCount, parent);
    t->setHorizontalHeaderLabels(
        {ForeignFindingDialog::tr("log index"), ForeignFindingDialog::tr("transaction"),
         ForeignFindingDialog::tr("contract"), ForeignFindingDialog::tr("from"),
         ForeignFindingDialog::tr("to"), ForeignFindingDialog::tr("value"),
         ForeignFindingDialog::tr("block hash"), ForeignFindingDialog::tr("row")});
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::MultiSelection);
    t->setTextElideMode(Qt::ElideMiddle);
    t->verticalHeader()->hide();
    for (int i = 0; i < events.size(); ++i) {
        const auto& e = events.at(i);
        const QStringList cells{e.logIndex ? QString::number(*e.logIndex) : QString(),
                                e.txHash,
                                e.contract,
                                e.from,
                                e.to,
                                e.value,
                                e.blockHash,
                                e.label};
        for (int c = 0; c < cells.size(); ++c)
            t->setItem(i, c, cell(cells.at(c)));
        if (selected && e.logIndex == selected)
            t->selectRow(i);
    }
    t->resizeColumnsToContents();
    return t;
}

} // namespace

ForeignFindingDialog::ForeignFindingDialog(const foreign::ForeignFinding& finding,
                                           const foreign::ForeignBlockView& view,
                                           const std::optional<engine::ReorgMark>& replacedBy,
                                           QWidget* parent)
    : QDialog(parent), m_summary(new QLabel(this))
{
    setWindowTitle(tr("%1 in block %2").arg(foreign::kindName(finding.kind)).arg(finding.block));
    setObjectName(QStringLiteral("foreignFindingDialog"));
    auto* layout = new QVBoxLayout(this);
    QString text = QStringLiteral("%1 (%2)\n%3")
                       .arg(foreign::kindName(finding.kind).toUpper(),
                            foreign::kindTitle(finding.kind), finding.describe());
    if (!view.error.isEmpty())
        text += QLatin1Char('\n') + tr("The block could not be read again: %1").arg(view.error);
    else if (!view.canonicalHash.isEmpty())
        text += QLatin1Char('\n') +
                tr("Block %1 on the lab's node now: %2").arg(view.block).arg(view.canonicalHash);
    if (replacedBy)
        text += QLatin1Char('\n') +
                tr("This environment's indexer rolled block %1 back in reorg #%2 (%3 blocks "
                   "replaced after block %4): its diff shows what that reorg undid.")
                    .arg(view.block)
                    .arg(replacedBy->id)
                    .arg(replacedBy->depth)
                    .arg(replacedBy->forkBlock);
    m_summary->setText(text);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setObjectName(QStringLiteral("foreignFindingSummary"));
    layout->addWidget(m_summary);

    auto* sides = new QHBoxLayout;
    const auto side = [&](const QString& title, QTableWidget* table) {
        auto* box = new QGroupBox(title, this);
        auto* inner = new QVBoxLayout(box);
        inner->addWidget(table);
        sides->addWidget(box, 1);
    };
    m_rows = eventTable(view.rows, finding.logIndex, this);
    m_rows->setObjectName(QStringLiteral("foreignRows"));
    m_chain = eventTable(view.chain, finding.logIndex, this);
    m_chain->setObjectName(QStringLiteral("chainTransfers"));
    side(tr("The indexer's rows in block %1 (%2)").arg(view.block).arg(view.rows.size()), m_rows);
    side(tr("What the chain holds: Transfers of the audited contracts (%1)").arg(view.chain.size()),
         m_chain);
    layout->addLayout(sides, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    if (replacedBy) {
        m_openReorg = buttons->addButton(tr("Open reorg #%1").arg(replacedBy->id),
                                         QDialogButtonBox::ActionRole);
        m_openReorg->setObjectName(QStringLiteral("openReorg"));
        connect(m_openReorg, &QPushButton::clicked, this,
                [this, id = replacedBy->id] { emit reorgDiffRequested(id); });
    }
    layout->addWidget(buttons);
    resize(1100, 480);
}

QString ForeignFindingDialog::summary() const
{
    return m_summary->text();
}

} // namespace forkscope::ui
