#include "ForeignWatchPanel.h"
#include "ForeignFindingDialog.h"
#include "ForeignFindingsModel.h"
#include "WatchIndexerDialog.h"
#include "engine/EngineApi.h"
#include "panels/PlotPanel.h"
#include "text/Count.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

namespace forkscope::ui {

using foreign::ForeignWatchSnapshot;

namespace {
// A URL's password (in its user part or its parameters) is never shown.
QString displayTarget(const QString& target)
{
    if (!target.contains(QStringLiteral("://")))
        return target;
    return QUrl(target).toString(QUrl::RemovePassword | QUrl::RemoveQuery);
}
} // namespace

ForeignWatchPanel::ForeignWatchPanel(engine::EngineApi* host, quint64 watchId,
                                     const QString& target, QWidget* parent)
    : QWidget(parent), m_host(host), m_id(watchId), m_banner(new QLabel(this)),
      m_chart(new PlotPanel(tr("Foreign indexer"), tr("lag (blocks)"), this)),
      m_model(new ForeignFindingsModel(this)), m_view(new QTableView(this))
{
    setObjectName(QStringLiteral("foreignWatchPanel"));
    setWindowTitle(tr("Watching %1").arg(target));
    auto* layout = new QVBoxLayout(this);
    m_banner->setObjectName(QStringLiteral("foreignWatchBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_banner);

    m_chart->setPlaceholderText(tr("Waiting for the first check."));
    m_chart->addSeries(tr("lag behind the lab's head"), Palette::series(Palette::Series::Lag));
    m_chart->addSeries(tr("findings"), Palette::screen(Palette::Tone::Bad), PlotPanel::Axis::Right);
    m_chart->setRightAxisLabel(tr("findings"));
    m_chart->setStepLine(Lag);
    m_chart->setStepLine(Findings);
    m_chart->setValueText(
        Lag, [](double v) { return text::count(qint64(v), tr("block"), tr("blocks")); });
    m_chart->setValueText(
        Findings, [](double v) { return text::count(qint64(v), tr("finding"), tr("findings")); });
    layout->addWidget(m_chart, 2);

    m_view->setObjectName(QStringLiteral("foreignFindings"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setToolTip(tr("Double-click a finding to see it next to what the chain holds"));
    connect(m_view, &QTableView::activated, this,
            [this](const QModelIndex& index) { openFinding(index.row()); });
    layout->addWidget(m_view, 1);

    connect(host, &engine::EngineApi::foreignWatchAvailable, this, &ForeignWatchPanel::apply);
    connect(host, &engine::EngineApi::foreignBlockAvailable, this, &ForeignWatchPanel::applyBlock);
    connect(host, &engine::EngineApi::statusAvailable, this, [this](const engine::EngineStatus& s) {
        if (!s.environmentId.isEmpty())
            m_reorgs = s.recentReorgs;
    });
    m_banner->setText(tr("Starting the watch of %1...").arg(target));
    resize(1000, 700);
}

ForeignWatchPanel::~ForeignWatchPanel()
{
    if (!m_ended && m_host)
        m_host->stopWatchingForeignIndexer(m_id);
}

ForeignWatchPanel* ForeignWatchPanel::askAndWatch(engine::EngineApi* host,
                                                  const QList<engine::ReorgMark>& reorgs,
                                                  QWidget* parent)
{
    WatchIndexerDialog dialog(parent);
    if (dialog.exec() != QDialog::Accepted)
        return nullptr;
    const foreign::ForeignWatchSpec spec = dialog.spec();
    // Connected before the watch starts: its first answer (a refusal) is not missed.
    auto* panel = new ForeignWatchPanel(host, 0, displayTarget(spec.target), parent);
    panel->m_id = host->watchForeignIndexer(spec);
    panel->m_reorgs = reorgs;
    panel->setWindowFlag(Qt::Window);
    panel->setAttribute(Qt::WA_DeleteOnClose);
    panel->show();
    return panel;
}

Palette::Tone ForeignWatchPanel::tone(const ForeignWatchSnapshot& s)
{
    using S = ForeignWatchSnapshot::State;
    switch (s.state) {
    case S::Watching:
        return s.findingCount() > 0 ? Palette::Tone::Bad : Palette::Tone::Good;
    case S::Starting:
    case S::Waiting:
    case S::Stopped:
        return Palette::Tone::Muted;
    case S::TargetUnreachable:
    case S::QueryFailed:
    case S::NodeUnreachable:
    case S::NodeUntrusted:
    case S::Refused:
        return Palette::Tone::Bad;
    }
    return Palette::Tone::Bad;
}

QString ForeignWatchPanel::describe(const ForeignWatchSnapshot& s)
{
    using S = ForeignWatchSnapshot::State;
    const QString found = text::count(s.findingCount(), tr("finding"), tr("findings"));
    const QString lastRan =
        s.lastCheckRan.isValid()
            ? tr("the last check that ran was at %1 and found %2")
                  .arg(QLocale().toString(s.lastCheckRan.toLocalTime().time()), found)
            : tr("no check has run yet");
    switch (s.state) {
    case S::Starting:
        return tr("Starting: no check has run yet.");
    case S::Waiting:
        return tr("Waiting: the query yields no row yet on %1 (the lab's head is block %2).")
            .arg(s.target)
            .arg(s.labHead.value_or(0));
    case S::Watching: {
        const QString heights =
            tr("the indexer is at block %1, the lab at %2 (lag %3)")
                .arg(*s.foreignHead)
                .arg(*s.labHead)
                .arg(text::count(qint64(s.lag().value_or(0)), tr("block"), tr("blocks")));
        if (!s.auditedTo)
            return tr("Watching: %1; no block is settled enough to audit yet (%2 "
                      "confirmations).")
                .arg(heights)
                .arg(s.confirmations);
        const QString range = tr("blocks %1..%2").arg(*s.auditedFrom).arg(*s.auditedTo);
        if (s.findingCount() == 0)
            return tr("Clean: %1 hold a row for every Transfer and nothing else; %2.")
                .arg(range, heights);
        return tr("%1 in %2; %3.").arg(found, range, heights);
    }
    case S::TargetUnreachable:
    case S::QueryFailed:
    case S::NodeUnreachable:
    case S::NodeUntrusted:
        return tr("NOT CHECKED: %1: %2. Nothing is known since: %3.")
            .arg(foreign::watchStateName(s.state).toUpper(), s.problem, lastRan);
    case S::Refused:
        return tr("NOT WATCHED: %1").arg(s.problem);
    case S::Stopped:
        return tr("Stopped (%1): %2.").arg(s.problem, lastRan);
    }
    return {};
}

QString ForeignWatchPanel::bannerText() const
{
    return m_banner->text();
}

void ForeignWatchPanel::apply(const ForeignWatchSnapshot& s)
{
    if (s.id != m_id || m_ended)
        return;
    m_ended = s.final();
    m_banner->setText(describe(s));
    m_banner->setStyleSheet(QStringLiteral("QLabel { color: white; background: %1; padding: "
                                           "6px; font-weight: bold; }")
                                .arg(Palette::screen(tone(s)).name()));
    const double t =
        double((s.at.isValid() ? s.at : QDateTime::currentDateTimeUtc()).toMSecsSinceEpoch()) /
        1000.0;
    if (s.checkRan()) {
        if (const auto lag = s.lag())
            m_chart->appendPoint(Lag, t, double(*lag));
        m_chart->appendPoint(Findings, t, double(s.findingCount()));
        m_chart->setProblem(QString());
        m_chart->setSummary(describe(s));
    } else {
        // No value: the lines break here, whatever the interval between checks.
        m_chart->appendPoint(Lag, t, qQNaN());
        m_chart->appendPoint(Findings, t, qQNaN());
        m_chart->setProblem(s.problem);
        m_chart->setSummary(tr("not checked: %1").arg(foreign::watchStateName(s.state)));
    }
    m_model->apply(s);
    m_view->setToolTip(s.checkRan() ? tr("Double-click a finding to see it next to what the "
                                         "chain holds")
                                    : tr("The findings of the last check that ran: the check "
                                         "cannot run now"));
}

std::optional<engine::ReorgMark>
ForeignWatchPanel::reorgThatReplaced(const QList<engine::ReorgMark>& reorgs, quint64 block)
{
    std::optional<engine::ReorgMark> newest;
    for (const engine::ReorgMark& r : reorgs) {
        const bool replaced =
            r.depth > 0 && qint64(block) > r.forkBlock && qint64(block) <= r.forkBlock + r.depth;
        if (replaced && (!newest || r.id > newest->id))
            newest = r;
    }
    return newest;
}

void ForeignWatchPanel::openFinding(int row)
{
    if (row < 0 || row >= m_model->rowCount())
        return;
    m_pending = m_model->finding(row);
    if (m_host)
        m_host->requestForeignBlock(m_id, m_pending->block);
}

void ForeignWatchPanel::applyBlock(const foreign::ForeignBlockView& view)
{
    if (view.watchId != m_id || !m_pending || m_pending->block != view.block)
        return;
    auto* dialog =
        new ForeignFindingDialog(*m_pending, view, reorgThatReplaced(m_reorgs, view.block), this);
    m_pending.reset();
    if (m_host)
        connect(dialog, &ForeignFindingDialog::reorgDiffRequested, m_host.data(),
                &engine::EngineApi::requestReorgDiff);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    emit findingOpened(dialog);
}

} // namespace forkscope::ui
