#include "ReorgDiffDialog.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace forkscope::ui {

ReorgDiffDialog::ReorgDiffDialog(const engine::ReorgDiff& diff, QWidget* parent)
    : QDialog(parent), m_summary(new QLabel(this)), m_table(new QTableWidget(this))
{
    setWindowTitle(tr("Reorg %1").arg(diff.reorg.id));
    resize(1000, 500);
    m_summary->setText(tr("Reorg %1 (%2): fork at block %3, depth %4, %5 rows removed, detected %6")
                           .arg(diff.reorg.id)
                           .arg(diff.reorg.reason)
                           .arg(diff.reorg.forkBlock)
                           .arg(diff.reorg.depth)
                           .arg(diff.reorg.rowsRemoved)
                           .arg(diff.reorg.detectedAt.toString(Qt::ISODate)));
    m_table->setColumnCount(9);
    m_table->setHorizontalHeaderLabels({tr("what"), tr("block"), tr("log"), tr("contract"),
                                        tr("holder / from"), tr("to"), tr("value"),
                                        tr("balance before"), tr("balance after")});
    m_table->setRowCount(int(diff.items.size()));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSortingEnabled(false);
    const auto label = [this](const QString& kind) {
        if (kind == QLatin1String("transfer_removed"))
            return tr("transfer removed");
        if (kind == QLatin1String("outbox_dropped"))
            return tr("outbox row dropped (never sent)");
        if (kind == QLatin1String("outbox_delivered_reorged"))
            return tr("outbox row already delivered: retracted");
        if (kind == QLatin1String("balance_changed"))
            return tr("balance recomputed");
        return kind;
    };
    for (int r = 0; r < diff.items.size(); ++r) {
        const auto& it = diff.items[r];
        const QStringList cells{label(it.kind),
                                it.blockNumber >= 0 ? QString::number(it.blockNumber) : QString(),
                                it.logIndex >= 0 ? QString::number(it.logIndex) : QString(),
                                it.contract,
                                it.holder.isEmpty() ? it.from : it.holder,
                                it.to,
                                it.value,
                                it.before,
                                it.after};
        for (int c = 0; c < cells.size(); ++c)
            m_table->setItem(r, c, new QTableWidgetItem(cells[c]));
    }
    m_table->setSortingEnabled(true);
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table);
}

QString ReorgDiffDialog::summary() const
{
    return m_summary->text();
}

} // namespace forkscope::ui
