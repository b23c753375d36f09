#include "ReorgPanel.h"
#include "Palette.h"
#include "ReorgDiffDialog.h"
#include "StatusTime.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"

#include "help/Glossary.h"
#include <QIcon>
#include <QListWidget>
#include <QPixmap>

namespace forkscope::ui {

ReorgPanel::ReorgPanel(engine::EngineApi* host, QWidget* parent)
    : PlotPanel(tr("Reorg events"), tr("depth (blocks)"), parent)
{
    setObjectName(QStringLiteral("reorgPanel"));
    setSummaryExplanation(explain(
        {QStringLiteral("reorg"), QStringLiteral("fork point"), QStringLiteral("absence")}));
    setPlaceholderText(tr("Waiting for the indexer: no data yet."));
    for (const QString& reason : Palette::liveReorgReasons()) {
        // Named in the legend once a reorg of that reason is there to see.
        setBarsInLegend(addBars(reason, Palette::reorgReason(reason)), false);
        m_reorgIds.append(QList<qint64>());
    }

    connect(this, &PlotPanel::barClicked, host, [this, host](int bars, int index) {
        const qint64 id = reorgIdAt(bars, index);
        if (id >= 0)
            host->requestReorgDiff(id);
    });
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("reorgList"));
    // Beside the chart, as tall as it: the list takes width, never the height of the panels
    // below.
    m_list->setFixedWidth(kListWidth);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setToolTip(tr("Every reorg of this environment, newest first; click one for what "
                          "it undid"));
    m_list->hide();
    // A click, or Enter on the current row.
    const auto openDiff = [host](QListWidgetItem* item) {
        host->requestReorgDiff(item->data(Qt::UserRole).toLongLong());
    };
    connect(m_list, &QListWidget::itemClicked, host, openDiff);
    connect(m_list, &QListWidget::itemActivated, host, openDiff);
    addSide(m_list);
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
                labels << tr("reorg #%1: %2 replaced after block %3; click for what it undid")
                              .arg(m.id)
                              .arg(engine::text::count(m.depth, tr("block"), tr("blocks")))
                              .arg(m.forkBlock);
                m_reorgIds[r] << m.id;
            }
        setBars(r, times, depths);
        setBarLabels(r, labels);
        setBarsInLegend(r, !times.isEmpty());
    }
    QList<qint64> ids;
    for (const auto& m : s.recentReorgs)
        ids << m.id;
    if (ids != m_listedIds) {
        m_listedIds = ids;
        m_list->clear();
        for (auto it = s.recentReorgs.crbegin(); it != s.recentReorgs.crend(); ++it) {
            // The reason is the swatch's colour, as the bars', and is named on hover.
            QPixmap swatch(10, 10);
            swatch.fill(Palette::reorgReason(it->reason));
            auto* item = new QListWidgetItem(
                QIcon(swatch),
                tr("#%1 %2, depth %3")
                    .arg(it->id)
                    .arg(it->detectedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")))
                    .arg(it->depth));
            item->setData(Qt::UserRole, it->id);
            item->setToolTip(
                tr("%1: %2 replaced after block %3, detected %4 UTC; click for "
                   "what it undid")
                    .arg(it->reason, engine::text::count(it->depth, tr("block"), tr("blocks")))
                    .arg(it->forkBlock)
                    .arg(it->detectedAt.toUTC().toString(Qt::ISODate)));
            m_list->addItem(item);
        }
        m_list->setVisible(!ids.isEmpty());
    }
    setSummary(engine::text::count(s.recentReorgs.size(), tr("reorg"), tr("reorgs")));
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
