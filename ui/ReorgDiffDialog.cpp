#include "ReorgDiffDialog.h"
#include "ShortHex.h"
#include "chain/TokenAmount.h"
#include "engine/DisplayState.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace forkscope::ui {

namespace {

QString kindLabel(const QString& kind)
{
    if (kind == QLatin1String("transfer_removed"))
        return ReorgDiffDialog::tr("transfer removed");
    if (kind == QLatin1String("outbox_dropped"))
        return ReorgDiffDialog::tr("outbox row dropped (never sent, or refused)");
    if (kind == QLatin1String("outbox_delivered_reorged"))
        return ReorgDiffDialog::tr("outbox row already delivered: retracted");
    if (kind == QLatin1String("outbox_unconfirmed_retracted"))
        return ReorgDiffDialog::tr("outbox row sent without an answer: retracted");
    if (kind == QLatin1String("balance_changed"))
        return ReorgDiffDialog::tr("balance recomputed");
    if (kind == QLatin1String("child_removed"))
        return ReorgDiffDialog::tr("factory child removed (its creation was rolled back)");
    return kind;
}

// A cell showing `text` (hashes elided in the middle) with the whole value on hover.
QTableWidgetItem* cell(const QString& text)
{
    auto* item = new QTableWidgetItem(shortHex(text));
    item->setToolTip(text);
    return item;
}

// An amount in the token's units when its metadata is known ("12.5 FSD"), right-aligned,
// with the raw units on hover.
QTableWidgetItem* amountCell(const QString& raw, const std::optional<chain::TokenInfo>& token)
{
    if (raw.isEmpty() || !token)
        return cell(raw);
    auto* item = new QTableWidgetItem(chain::formatTokenAmount(raw, *token));
    item->setToolTip(
        ReorgDiffDialog::tr("%1 raw units (%2 decimals)").arg(raw).arg(token->decimals));
    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

} // namespace

QStringList ReorgDiffDialog::filterPrefixes()
{
    return {QString(), QStringLiteral("transfer_"), QStringLiteral("outbox_"),
            QStringLiteral("balance_")};
}

QString ReorgDiffDialog::againText(engine::ReorgDiff::Item::Again again)
{
    switch (again) {
    case engine::ReorgDiff::Item::Again::SameTransaction:
        return tr("yes");
    case engine::ReorgDiff::Item::Again::OtherTransaction:
        return tr("yes, in another transaction");
    case engine::ReorgDiff::Item::Again::No:
        break;
    }
    return tr("no");
}

QString ReorgDiffDialog::countsText(const engine::ReorgDiff& diff)
{
    using Again = engine::ReorgDiff::Item::Again;
    qint64 transfers = 0, again = 0, elsewhere = 0, dropped = 0, retracted = 0, unanswered = 0,
           holders = 0;
    for (const auto& it : diff.items) {
        if (it.kind == QLatin1String("transfer_removed")) {
            ++transfers;
            again += it.again != Again::No ? 1 : 0;
            elsewhere += it.again == Again::OtherTransaction ? 1 : 0;
        } else if (it.kind == QLatin1String("outbox_dropped")) {
            ++dropped;
        } else if (it.kind == QLatin1String("outbox_delivered_reorged")) {
            ++retracted;
        } else if (it.kind == QLatin1String("outbox_unconfirmed_retracted")) {
            ++unanswered;
        } else if (it.kind == QLatin1String("balance_changed")) {
            ++holders;
        }
    }
    using engine::text::count;
    const QString back =
        elsewhere == 0 ? tr("%1 back in the re-indexed chain").arg(again)
                       : tr("%1 back in the re-indexed chain, %2 of them in other transactions")
                             .arg(again)
                             .arg(elsewhere);
    return tr("%1 (%2), %3, %4 retracted, %5")
        .arg(count(transfers, tr("transfer removed"), tr("transfers removed")), back)
        .arg(count(dropped, tr("outbox row dropped"), tr("outbox rows dropped")),
             count(retracted, tr("delivered row"), tr("delivered rows")) +
                 (unanswered > 0
                      ? tr(" and %1").arg(count(unanswered, tr("row sent without an answer"),
                                                tr("rows sent without an answer")))
                      : QString()))
        .arg(count(holders, tr("holder's balance changed"), tr("holders' balances changed")));
}

ReorgDiffDialog::ReorgDiffDialog(const engine::ReorgDiff& diff, QWidget* parent)
    : QDialog(parent), m_summary(new QLabel(this)), m_counts(new QLabel(this)),
      m_filter(new QComboBox(this)), m_table(new QTableWidget(this))
{
    setWindowTitle(tr("Reorg %1").arg(diff.reorg.id));
    resize(1000, 500);
    // One time zone everywhere: local, with UTC on hover.
    const QDateTime at = diff.reorg.detectedAt;
    // What it undid is the counts line below, in transfers and balances (not database rows).
    m_summary->setText(tr("Reorg %1 (%2): %3 replaced after block %4, detected %5")
                           .arg(diff.reorg.id)
                           .arg(diff.reorg.reason,
                                engine::text::count(diff.reorg.depth, tr("block"), tr("blocks")))
                           .arg(diff.reorg.forkBlock)
                           .arg(at.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
    m_summary->setToolTip(tr("detected %1").arg(at.toUTC().toString(Qt::ISODate)));
    m_counts->setObjectName(QStringLiteral("diffCounts"));
    m_counts->setText(countsText(diff));
    m_counts->setStyleSheet(QStringLiteral("font-weight: bold"));
    // Wrapped: one long line would make the dialog wider than a laptop's screen.
    m_counts->setWordWrap(true);
    m_summary->setWordWrap(true);
    m_filter->addItems({tr("All kinds"), tr("Transfers"), tr("Outbox rows"), tr("Balances")});
    connect(m_filter, &QComboBox::currentIndexChanged, this, &ReorgDiffDialog::applyFilter);

    const QStringList headers{tr("what"),
                              tr("block"),
                              tr("log"),
                              tr("tx hash"),
                              tr("contract"),
                              tr("holder / from"),
                              tr("to"),
                              tr("value"),
                              tr("in the re-indexed chain"),
                              tr("balance before rollback"),
                              tr("after rollback, before re-index")};
    m_table->setColumnCount(int(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(int(diff.items.size()));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Elided in the middle, as shortHex is: a narrowed column keeps one ellipsis and the end.
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setSortingEnabled(false);
    for (int r = 0; r < diff.items.size(); ++r) {
        const auto& it = diff.items[r];
        const bool transfer = it.kind == QLatin1String("transfer_removed");
        const QStringList cells{kindLabel(it.kind),
                                it.blockNumber >= 0 ? QString::number(it.blockNumber) : QString(),
                                it.logIndex >= 0 ? QString::number(it.logIndex) : QString(),
                                it.txHash,
                                it.contract,
                                it.holder.isEmpty() ? it.from : it.holder,
                                it.to,
                                it.value,
                                transfer ? againText(it.again) : QString(),
                                it.before,
                                it.after};
        const auto token = diff.tokens.contains(it.contract)
                               ? std::optional(diff.tokens.value(it.contract))
                               : std::nullopt;
        for (int c = 0; c < cells.size(); ++c)
            m_table->setItem(r, c,
                             c == ValueColumn || c == BeforeColumn || c == AfterColumn
                                 ? amountCell(cells[c], token)
                                 : cell(cells[c]));
        m_kinds << it.kind;
    }
    m_table->resizeColumnsToContents();
    m_table->horizontalHeader()->setStretchLastSection(true);

    auto* top = new QHBoxLayout;
    top->addWidget(m_counts, 1);
    top->addWidget(new QLabel(tr("Show:"), this));
    top->addWidget(m_filter);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(top);
    layout->addWidget(m_table);
}

void ReorgDiffDialog::applyFilter(int choice)
{
    const QString prefix = filterPrefixes().value(choice);
    for (int r = 0; r < m_kinds.size(); ++r)
        m_table->setRowHidden(r, !prefix.isEmpty() && !m_kinds[r].startsWith(prefix));
}

QString ReorgDiffDialog::summary() const
{
    return m_summary->text();
}

QString ReorgDiffDialog::counts() const
{
    return m_counts->text();
}

} // namespace forkscope::ui
