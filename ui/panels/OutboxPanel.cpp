#include "OutboxPanel.h"
#include "Palette.h"
#include "StatusTime.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"
#include "engine/SyncProgress.h"
#include "help/Glossary.h"

#include <QLabel>

namespace forkscope::ui {

OutboxPanel::OutboxPanel(engine::EngineApi* host, QWidget* parent)
    : PlotPanel(tr("Outbox backlog"), tr("rows, rows/s"), parent)
{
    setObjectName(QStringLiteral("outboxPanel"));
    setSummaryExplanation(explain({QStringLiteral("outbox"), QStringLiteral("safe height"),
                                   QStringLiteral("confirmations")}));
    setPlaceholderText(tr("Waiting for the indexer: no data yet."));
    addSeries(tr("pending rows"), Palette::series(Palette::Series::OutboxPending));
    addSeries(tr("delivered/s"), Palette::series(Palette::Series::DeliveredRate));
    addSeries(tr("safe height"), Palette::series(Palette::Series::SafeHeight),
              PlotPanel::Axis::Right);
    addSeries(tr("head"), Palette::series(Palette::Series::Head), PlotPanel::Axis::Right);
    setRightAxisLabel(tr("height (blocks)"));
    setValueText(Pending,
                 [](double v) { return engine::text::count(qint64(v), tr("row"), tr("rows")); });
    setValueText(DeliveredRate, [](double v) { return engine::text::rate(v, tr("rows")); });
    const auto block = [](double v) { return tr("block %1").arg(qint64(v)); };
    setValueText(SafeHeight, block);
    setValueText(Head, block);
    m_noSink = new QLabel(
        tr("<p>No delivery sink is configured, so outbox rows are kept in the database and "
           "not sent. <a href=\"settings\">Configure a webhook or JSON-lines sink in "
           "Settings...</a></p>"));
    m_noSink->setObjectName(QStringLiteral("noSinkNotice"));
    m_noSink->setWordWrap(true);
    // Right under the summary, where the chart was: centred in the empty panel it sat at
    // the bottom edge, half scrolled away on a laptop.
    m_noSink->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_noSink->setContentsMargins(4, 8, 4, 4);
    m_noSink->hide();
    connect(m_noSink, &QLabel::linkActivated, this, &OutboxPanel::settingsRequested);
    addFooter(m_noSink);
    connect(host, &engine::EngineApi::statusAvailable, this, &OutboxPanel::apply);
}

void OutboxPanel::apply(const engine::EngineStatus& s)
{
    // Counts nobody read (a database that cannot be opened) are not an empty outbox: the
    // panel keeps saying why none come.
    if (s.environmentId.isEmpty() || !s.storedReadAt.isValid())
        return;
    const double t = statusTime(s);
    noteEnvironment(s.environmentId, t);
    appendPoint(Pending, t, double(s.outboxPending));
    appendPoint(DeliveredRate, t, s.outboxDeliveredPerSecond);
    if (s.safeHeight)
        appendPoint(SafeHeight, t, double(*s.safeHeight));
    if (s.headBlock)
        appendPoint(Head, t, double(*s.headBlock));
    // Without a sink nothing is ever delivered: a backlog chart would only ever grow, so
    // the panel says what is going on and where to change it.
    const bool noSink = s.outboxSink.isEmpty();
    setChartVisible(!noSink);
    m_noSink->setVisible(noSink);
    // The counts were read with the stored checkpoint, in one snapshot; the live checkpoint
    // in the status bar may be a commit ahead, so the count names the block it is true at.
    const QString atCheckpoint =
        s.storedCheckpoint ? tr(" at checkpoint %1").arg(*s.storedCheckpoint) : QString();
    if (noSink) {
        setSummary(
            tr("No delivery sink configured; %1 kept%2")
                .arg(engine::text::count(s.outboxPending, tr("row"), tr("rows")), atCheckpoint));
        return;
    }
    const QString age = s.outboxOldestPendingAgeSecs
                            ? engine::humanDuration(*s.outboxOldestPendingAgeSecs)
                            : tr("-");
    QString text = tr("%1 pending%2 (oldest %3) | %4 delivered, %5 | %6")
                       .arg(s.outboxPending)
                       .arg(atCheckpoint, age)
                       .arg(s.outboxDelivered)
                       .arg(engine::text::rate(s.outboxDeliveredPerSecond, tr("rows")))
                       .arg(deliverableText(s));
    if (s.outboxFailed > 0)
        text += tr(" | %1 failed").arg(s.outboxFailed);
    setSummary(text);
}

QString OutboxPanel::deliverableText(const engine::EngineStatus& s)
{
    const QString confirmations =
        engine::text::count(qint64(s.confirmations), tr("confirmation"), tr("confirmations"));
    if (!s.safeHeight)
        return tr("nothing deliverable yet (no ready node; %1)").arg(confirmations);
    return tr("deliverable up to block %1 (head %2, %3)")
        .arg(*s.safeHeight)
        .arg(s.headBlock ? QString::number(*s.headBlock) : tr("unknown"), confirmations);
}

} // namespace forkscope::ui
