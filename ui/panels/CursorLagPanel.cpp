#include "CursorLagPanel.h"
#include "Palette.h"
#include "StatusTime.h"
#include "engine/EngineApi.h"
#include "engine/SyncProgress.h"
#include "indexer/IndexerStatus.h"

namespace forkscope::ui {

using engine::EngineStatus;

CursorLagPanel::CursorLagPanel(engine::EngineApi* host, QWidget* parent)
    : PlotPanel(tr("Cursor lag"), tr("height (blocks)"), parent)
{
    setObjectName(QStringLiteral("cursorLagPanel"));
    setPlaceholderText(tr("Waiting for the indexer: no data yet."));
    addSeries(tr("head"), Palette::series(Palette::Series::Head));
    addSeries(tr("checkpoint"), Palette::series(Palette::Series::Checkpoint));
    addSeries(tr("lag"), Palette::series(Palette::Series::Lag), PlotPanel::Axis::Right);
    setRightAxisLabel(tr("lag (blocks)"));
    connect(host, &engine::EngineApi::statusAvailable, this, &CursorLagPanel::apply);
}

void CursorLagPanel::apply(const EngineStatus& s)
{
    if (s.environmentId.isEmpty())
        return;
    const double t = statusTime(s);
    if (s.headBlock)
        appendPoint(Head, t, double(*s.headBlock));
    if (s.checkpoint)
        appendPoint(Checkpoint, t, double(*s.checkpoint));
    const std::optional<std::uint64_t> lagBlocks = indexer::IndexerStatus::cursorLag(
        s.headBlock, s.checkpoint, s.connection != EngineStatus::Connection::Unreachable);
    if (lagBlocks)
        appendPoint(Lag, t, double(*lagBlocks));
    QString eta;
    if (lagBlocks && *lagBlocks > 0) {
        const auto secs = engine::etaSeconds(*lagBlocks, s.blocksPerSecond);
        eta = secs ? tr(" | ETA %1").arg(engine::humanDuration(*secs)) : tr(" | ETA unknown");
    }
    // Freshness is not lag: a synced indexer on a stalled chain has lag 0 and old data.
    const QString fresh =
        s.lastCommitAt.isValid()
            ? engine::humanDuration(
                  double(s.lastCommitAt.msecsTo(QDateTime::currentDateTimeUtc())) / 1000.0)
            : tr("never");
    const QString lagStr = lagBlocks ? QString::number(*lagBlocks) : tr("unknown");
    setSummary(tr("%1 | lag %2 blocks%3 | %4 events/s | last commit %5 ago")
                   .arg(s.indexerState, lagStr, eta)
                   .arg(s.eventsPerSecond, 0, 'f', 0)
                   .arg(fresh));
}

} // namespace forkscope::ui
