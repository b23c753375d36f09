#include "OutboxPanel.h"
#include "Palette.h"
#include "StatusTime.h"
#include "engine/EngineApi.h"
#include "engine/SyncProgress.h"

namespace forkscope::ui {

OutboxPanel::OutboxPanel(engine::EngineApi* host, QWidget* parent)
    : PlotPanel(tr("Outbox backlog"), tr("rows, rows/s"), parent)
{
    setObjectName(QStringLiteral("outboxPanel"));
    setPlaceholderText(tr("Waiting for the indexer: no data yet."));
    addSeries(tr("pending rows"), Palette::series(Palette::Series::OutboxPending));
    addSeries(tr("delivered/s"), Palette::series(Palette::Series::DeliveredRate));
    addSeries(tr("safe height"), Palette::series(Palette::Series::SafeHeight),
              PlotPanel::Axis::Right);
    addSeries(tr("head"), Palette::series(Palette::Series::Head), PlotPanel::Axis::Right);
    setRightAxisLabel(tr("height (blocks)"));
    connect(host, &engine::EngineApi::statusAvailable, this, &OutboxPanel::apply);
}

void OutboxPanel::apply(const engine::EngineStatus& s)
{
    if (s.environmentId.isEmpty())
        return;
    const double t = statusTime(s);
    appendPoint(Pending, t, double(s.outboxPending));
    appendPoint(DeliveredRate, t, s.outboxDeliveredPerSecond);
    if (s.safeHeight)
        appendPoint(SafeHeight, t, double(*s.safeHeight));
    if (s.headBlock)
        appendPoint(Head, t, double(*s.headBlock));
    const QString age = s.outboxOldestPendingAgeSecs
                            ? engine::humanDuration(*s.outboxOldestPendingAgeSecs)
                            : tr("-");
    const QString safe = s.safeHeight ? QString::number(*s.safeHeight) : tr("none (no ready node)");
    QString text = tr("%1 pending (oldest %2) | %3 delivered, %4/s | safe %5 = head - %6")
                       .arg(s.outboxPending)
                       .arg(age)
                       .arg(s.outboxDelivered)
                       .arg(s.outboxDeliveredPerSecond, 0, 'f', 1)
                       .arg(safe)
                       .arg(s.confirmations);
    if (s.outboxFailed > 0)
        text += tr(" | %1 failed").arg(s.outboxFailed);
    if (s.outboxSink.isEmpty())
        text += tr(" | no sink: rows are kept, not delivered");
    setSummary(text);
}

} // namespace forkscope::ui
