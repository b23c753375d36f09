#include "CursorLagPanel.h"
#include "Palette.h"
#include "ShortHex.h"
#include "StatusTime.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"
#include "help/Glossary.h"

#include <qcustomplot.h>

namespace forkscope::ui {

using engine::EngineStatus;

std::optional<quint64> CursorLagPanel::chartedHead(const EngineStatus& s)
{
    // The head the lag is measured from (engine::displayLag takes the newer of the indexer's
    // and node health's), so head - checkpoint on the chart is always the lag it shows: a
    // stalled indexer's own head stops with it, the node's runs on.
    if (const std::optional<quint64> lag = engine::displayLag(s))
        return s.checkpoint.value_or(0) + *lag;
    return std::nullopt; // unreachable: no head to draw, the line breaks
}

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
    // While synced the two lines are one: the head is a wide, pale band under the thin
    // checkpoint line, so it shows either way, and the gap between them is shaded.
    QColor band = Palette::series(Palette::Series::Head);
    band.setAlpha(110);
    plot()->graph(Head)->setPen(QPen(band, 6, Qt::SolidLine, Qt::RoundCap));
    QColor gap = Palette::series(Palette::Series::Lag);
    gap.setAlpha(50);
    plot()->graph(Checkpoint)->setBrush(gap);
    plot()->graph(Checkpoint)->setChannelFillGraph(plot()->graph(Head));
    const auto block = [](double v) { return tr("block %1").arg(qint64(v)); };
    setValueText(Head, block);
    setValueText(Checkpoint, block);
    setValueText(
        Lag, [](double v) { return engine::text::count(qint64(v), tr("block"), tr("blocks")); });
    connect(host, &engine::EngineApi::statusAvailable, this, &CursorLagPanel::apply);
}

void CursorLagPanel::apply(const EngineStatus& s)
{
    if (s.environmentId.isEmpty())
        return;
    const double t = statusTime(s);
    noteEnvironment(s.environmentId, t);
    if (const std::optional<quint64> head = chartedHead(s))
        appendPoint(Head, t, double(*head));
    if (s.checkpoint)
        appendPoint(Checkpoint, t, double(*s.checkpoint));
    const std::optional<quint64> lagBlocks = engine::displayLag(s);
    if (lagBlocks)
        appendPoint(Lag, t, double(*lagBlocks));
    applyBackfills(s, t);
    // One state drives every status text (engine/DisplayState.h).
    setSummary(engine::text::cursorHeader(s, QDateTime::currentDateTimeUtc()));
}

} // namespace forkscope::ui

namespace forkscope::ui {

void CursorLagPanel::applyBackfills(const EngineStatus& s, double t)
{
    QSet<QString> now;
    for (const indexer::SourceBackfillProgress& b : s.backfills) {
        now.insert(b.contract);
        int series = m_backfillSeries.value(b.contract, -1);
        if (series < 0) {
            series = addSeries(QString(), Palette::nodeSeries(int(m_backfillSeries.size()) + 3),
                               PlotPanel::Axis::Right);
            setStepLine(series);
            setValueText(series, [](double v) {
                return engine::text::count(qint64(v), tr("block"), tr("blocks")) + tr(" to go");
            });
            m_backfillSeries.insert(b.contract, series);
        }
        plot()->graph(series)->setName(tr("%1 backfill").arg(shortHex(b.contract)));
        if (const std::optional<quint64> toGo = engine::backfillBlocksToGo(s, b))
            appendPoint(series, t, double(*toGo));
    }
    // Gone from the list of the same environment: it joined, and its line ends here at 0,
    // nothing left to go. (Another environment's lines just stop.)
    for (const QString& contract : std::as_const(m_backfilling))
        if (!now.contains(contract) && s.environmentId == m_backfillEnvironment) {
            const int series = m_backfillSeries.value(contract);
            appendPoint(series, t, 0);
            plot()->graph(series)->setName(tr("%1 backfill (joined)").arg(shortHex(contract)));
        }
    m_backfilling = now;
    m_backfillEnvironment = s.environmentId;
}

} // namespace forkscope::ui
