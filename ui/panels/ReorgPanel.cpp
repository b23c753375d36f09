#include "ReorgPanel.h"
#include "Palette.h"
#include "ReorgDiffDialog.h"
#include "StatusTime.h"
#include "engine/EngineApi.h"
#include "help/Glossary.h"

namespace forkscope::ui {

ReorgPanel::ReorgPanel(engine::EngineApi* host, QWidget* parent)
    : PlotPanel(tr("Reorg events"), tr("depth (blocks)"), parent)
{
    setObjectName(QStringLiteral("reorgPanel"));
    setSummaryExplanation(explain(
        {QStringLiteral("reorg"), QStringLiteral("fork point"), QStringLiteral("absence")}));
    setPlaceholderText(tr("Waiting for the indexer: no data yet."));
    for (const QString& reason : Palette::liveReorgReasons()) {
        addBars(reason, Palette::reorgReason(reason));
        m_reorgIds.append(QList<qint64>());
    }
    connect(this, &PlotPanel::barClicked, host, [this, host](int bars, int index) {
        const qint64 id = reorgIdAt(bars, index);
        if (id >= 0)
            host->requestReorgDiff(id);
    });
    connect(host, &engine::EngineApi::statusAvailable, this, &ReorgPanel::apply);
    connect(host, &engine::EngineApi::reorgDiffAvailable, this, &ReorgPanel::showDiff);
}

qint64 ReorgPanel::reorgIdAt(int bars, int index) const
{
    return m_reorgIds.value(bars).value(index, -1);
}

ReorgDiffDialog* ReorgPanel::lastDiffDialog() const
{
    return m_diffDialog;
}

void ReorgPanel::apply(const engine::EngineStatus& s)
{
    if (s.environmentId.isEmpty())
        return;
    const QStringList& reasons = Palette::liveReorgReasons();
    for (int r = 0; r < reasons.size(); ++r) {
        QList<double> times, depths;
        QStringList labels;
        m_reorgIds[r].clear();
        for (const auto& m : s.recentReorgs)
            if (m.reason == reasons[r]) {
                times << double(m.detectedAt.toMSecsSinceEpoch()) / 1000.0;
                depths << double(m.depth);
                labels << tr("reorg #%1: fork at block %2, %3 rows removed; click for the diff")
                              .arg(m.id)
                              .arg(m.forkBlock)
                              .arg(m.rowsRemoved);
                m_reorgIds[r] << m.id;
            }
        setBars(r, times, depths);
        setBarLabels(r, labels);
    }
    setSummary(tr("%1 reorg(s)").arg(s.recentReorgs.size()));
    if (s.recentReorgs.isEmpty())
        setPlaceholderText(tr("No reorg in this environment yet."));
    advanceTo(statusTime(s));
}

void ReorgPanel::showDiff(const engine::ReorgDiff& diff)
{
    if (m_diffDialog)
        m_diffDialog->close();
    m_diffDialog = new ReorgDiffDialog(diff, this);
    m_diffDialog->setAttribute(Qt::WA_DeleteOnClose);
    m_diffDialog->show();
}

} // namespace forkscope::ui
