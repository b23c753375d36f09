#include "CursorLagPanel.h"
#include "Palette.h"
#include "StatusTime.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"
#include "help/Glossary.h"

namespace forkscope::ui {

using engine::EngineStatus;

CursorLagPanel::CursorLagPanel(engine::EngineApi* host, QWidget* parent)
    : PlotPanel(tr("Cursor lag"), tr("height (blocks)"), parent)
{
    setObjectName(QStringLiteral("cursorLagPanel"));
    setSummaryExplanation(explain({QStringLiteral("cursor lag"), QStringLiteral("checkpoint")}));
    setPlaceholderText(tr("Waiting for the indexer: no data yet."));
    addSeries(tr("head"), Palette::series(Palette::Series::Head));
    addSeries(tr("checkpoint"), Palette::series(Palette::Series::Checkpoint));
    addSeries(tr("lag"), Palette::series(Palette::Series::Lag), PlotPanel::Axis::Right);
    setRightAxisLabel(tr("lag (blocks)"));
    setStepLine(Lag);
    connect(host, &engine::EngineApi::statusAvailable, this, &CursorLagPanel::apply);
}

void CursorLagPanel::apply(const EngineStatus& s)
{
    if (s.environmentId.isEmpty())
        return;
    const double t = statusTime(s);
    noteEnvironment(s.environmentId, t);
    if (s.headBlock)
        appendPoint(Head, t, double(*s.headBlock));
    if (s.checkpoint)
        appendPoint(Checkpoint, t, double(*s.checkpoint));
    const std::optional<quint64> lagBlocks = engine::displayLag(s);
    if (lagBlocks)
        appendPoint(Lag, t, double(*lagBlocks));
    // One state drives every status text (engine/DisplayState.h).
    setSummary(engine::text::cursorHeader(s, QDateTime::currentDateTimeUtc()));
}

} // namespace forkscope::ui
