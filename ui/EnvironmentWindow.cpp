#include "EnvironmentWindow.h"
#include "TableBrowser.h"
#include "engine/DisplayState.h"
#include "models/PagedTableModel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

namespace forkscope::ui {

EnvironmentWindow::EnvironmentWindow(const QString& environmentId, bool archived,
                                     engine::EngineApi* host, QWidget* parent)
    : QWidget(parent, Qt::Window), m_env(environmentId), m_summary(new QLabel(this)),
      m_transfers(new TableBrowser(engine::TableRequest::Kind::Transfers,
                                   tr("Filter by address or tx hash"), this)),
      m_balances(new TableBrowser(engine::TableRequest::Kind::Balances,
                                  tr("Filter by token or holder"), this))
{
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(archived ? tr("Environment %1 (archived, read-only)").arg(environmentId)
                            : tr("Environment %1 (read-only view)").arg(environmentId));
    resize(900, 600);
    m_summary->setObjectName(QStringLiteral("environmentSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_summary->setText(tr("Loading the checkpoint report..."));
    for (TableBrowser* b : {m_transfers, m_balances}) {
        b->model()->setEnvironment(environmentId);
        b->connectTo(host);
    }
    auto* tabs = new QTabWidget(this);
    tabs->addTab(m_transfers, tr("Transfers"));
    tabs->addTab(m_balances, tr("Balances"));
    auto* exportButton = new QPushButton(tr("Export report..."), this);
    exportButton->setObjectName(QStringLiteral("exportEnvironmentReport"));
    exportButton->setToolTip(tr("Write this environment's checkpoint report as PDF, JSON or CSV"));
    connect(exportButton, &QPushButton::clicked, this, [this] { emit exportRequested(m_env); });
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(exportButton, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(tabs, 1);
}

QString EnvironmentWindow::summaryText() const
{
    return m_summary->text();
}

void EnvironmentWindow::applyReport(const report::CheckpointReport& r)
{
    QStringList lines;
    lines << tr("Environment %1 on chain %2 (genesis %3), created %4%5")
                 .arg(r.environment.id)
                 .arg(r.environment.chainId)
                 .arg(r.environment.genesisHash, r.environment.createdAt,
                      r.environment.archivedAt.isEmpty()
                          ? tr(", live")
                          : tr(", archived %1").arg(r.environment.archivedAt));
    for (const auto& c : r.checkpoints)
        lines << tr("Checkpoint %1 %2 (policy %3, generation %4): %5 at %6")
                     .arg(c.blockNumber)
                     .arg(c.blockHash, c.policyVersion)
                     .arg(c.generation)
                     .arg(report::statusName(c.verification.status),
                          c.verification.checkedAt.isEmpty() ? tr("(not checked)")
                                                             : c.verification.checkedAt);
    if (r.checkpoints.isEmpty())
        lines << tr("Nothing indexed in this environment.");
    using engine::text::count;
    lines << tr("%1, %2, %3, %4, outbox %5 pending / %6 delivered")
                 .arg(count(r.counts.blocks, tr("block"), tr("blocks")),
                      count(r.counts.transfers, tr("transfer"), tr("transfers")),
                      count(r.counts.balances, tr("balance"), tr("balances")),
                      count(r.counts.reorgs, tr("reorg"), tr("reorgs")))
                 .arg(r.counts.outboxPending)
                 .arg(r.counts.outboxDelivered);
    m_summary->setText(lines.join(QLatin1Char('\n')));
}

} // namespace forkscope::ui
