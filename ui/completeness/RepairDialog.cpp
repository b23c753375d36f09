#include "RepairDialog.h"
#include "Palette.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace forkscope::ui {

QString RepairDialog::proposedNode(const QList<health::NodeHealth>& nodes, const QString& bad)
{
    for (const auto& n : nodes)
        if (n.url != bad && n.state == health::NodeState::CaughtUp)
            return n.url;
    for (const auto& n : nodes)
        if (n.url != bad && n.state != health::NodeState::DroppingLogs)
            return n.url;
    return bad;
}

RepairDialog::RepairDialog(const indexer::CompletenessAlert& alert,
                           const QList<health::NodeHealth>& nodes, QWidget* parent)
    : QDialog(parent), m_from(alert.fromBlock), m_nodes(new QComboBox(this))
{
    setWindowTitle(tr("Repair the indexed data"));
    auto* layout = new QVBoxLayout(this);
    auto* what = new QLabel(
        tr("<p><b>%1</b></p><p>Repair rolls the environment back to block %2 in one "
           "transaction, like a reorg (recorded with reason <i>repair</i>; the reorg diff "
           "view shows every row it removed), then fetches block %3 onwards again, from the "
           "node you choose below.</p>")
            .arg(alert.summary().toHtmlEscaped())
            .arg(alert.fromBlock > 0 ? alert.fromBlock - 1 : 0)
            .arg(alert.fromBlock),
        this);
    what->setWordWrap(true);
    layout->addWidget(what);
    auto* form = new QFormLayout;
    const QString proposed = proposedNode(nodes, alert.node);
    QStringList urls;
    for (const auto& n : nodes)
        urls << n.url;
    if (!urls.contains(alert.node))
        urls << alert.node;
    for (const QString& url : urls) {
        QString label = url;
        for (const auto& n : nodes)
            if (n.url == url)
                label += QStringLiteral(" (%1)").arg(health::nodeStateName(n.state));
        if (url == alert.node)
            label += tr(" - the node that did not return the data");
        m_nodes->addItem(label, url);
    }
    m_nodes->setCurrentIndex(int(urls.indexOf(proposed)));
    m_nodes->setObjectName(QStringLiteral("repairNode"));
    form->addRow(tr("Fetch again from:"), m_nodes);
    layout->addLayout(form);
    if (proposed == alert.node) {
        auto* warn = new QLabel(tr("No other healthy node is watched: fetching from the same "
                                   "node will most likely stop at the same block again."),
                                this);
        warn->setWordWrap(true);
        warn->setStyleSheet(QStringLiteral("color: %1").arg(Palette::dataIncomplete().name()));
        layout->addWidget(warn);
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    auto* repair =
        buttons->addButton(tr("Roll back and fetch again"), QDialogButtonBox::AcceptRole);
    repair->setObjectName(QStringLiteral("repairConfirm"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QString RepairDialog::node() const
{
    return m_nodes->currentData().toString();
}

} // namespace forkscope::ui
