#include "DataIncompleteBanner.h"
#include "Palette.h"
#include "RepairDialog.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace forkscope::ui {

DataIncompleteBanner::DataIncompleteBanner(QWidget* parent)
    : QFrame(parent), m_text(new QLabel(this)), m_repair(new QPushButton(tr("Repair..."), this))
{
    setObjectName(QStringLiteral("dataIncompleteBanner"));
    setStyleSheet(Palette::bannerStyle(objectName()));
    auto* layout = new QHBoxLayout(this);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_text, 1);
    m_repair->setObjectName(QStringLiteral("repairButton"));
    m_repair->setToolTip(tr("Roll back to the first bad block in one transaction and fetch "
                            "the range again, from another node if one is healthy"));
    layout->addWidget(m_repair);
    connect(m_repair, &QPushButton::clicked, this, &DataIncompleteBanner::openRepairDialog);
    hide();
}

void DataIncompleteBanner::setAlerts(const QList<indexer::CompletenessAlert>& alerts,
                                     const QList<health::NodeHealth>& nodes)
{
    m_alerts = alerts;
    m_nodes = nodes;
    if (alerts.isEmpty()) {
        hide();
        return;
    }
    const indexer::CompletenessAlert& first = alerts.first();
    QString text = tr("DATA INCOMPLETE - %1").arg(first.summary());
    if (alerts.size() > 1)
        text += alerts.size() == 2 ? tr(" (and 1 more range)")
                                   : tr(" (and %1 more ranges)").arg(alerts.size() - 1);
    // An absence suspicion stops nothing (AbsenceAlertPlan.h): only say what it holds back.
    if (first.kind == QLatin1String("absence"))
        text += tr(". Indexing goes on; blocks %1-%2 stay in doubt until they are repaired or "
                   "the node returns their logs.")
                    .arg(first.fromBlock)
                    .arg(first.toBlock);
    else
        text += tr(". Nothing after block %1 is indexed until it is repaired.")
                    .arg(first.fromBlock > 0 ? first.fromBlock - 1 : 0);
    m_text->setText(text);
    show();
}

QString DataIncompleteBanner::text() const
{
    return isVisible() || !m_alerts.isEmpty() ? m_text->text() : QString();
}

void DataIncompleteBanner::openRepairDialog()
{
    if (m_alerts.isEmpty())
        return;
    // The window's child, not the banner's: a dialog of its own look, centred on the window.
    RepairDialog dialog(m_alerts.first(), m_nodes, window());
    if (dialog.exec() == QDialog::Accepted)
        emit repairRequested(dialog.fromBlock(), dialog.node());
}

} // namespace forkscope::ui
