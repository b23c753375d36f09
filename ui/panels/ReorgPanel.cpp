#include "ReorgPanel.h"
#include "Palette.h"
#include "ReorgDiffDialog.h"
#include "StatusTime.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"

#include "help/Glossary.h"
#include <QListWidget>

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
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("reorgList"));
    m_list->setMaximumHeight(72);
    m_list->setToolTip(tr("Every reorg of this environment, newest first; click one for what "
                          "it undid"));
    m_list->hide();
    // A click, or Enter on the current row.
    const auto openDiff = [host](QListWidgetItem* item) {
        host->requestReorgDiff(item->data(Qt::UserRole).toLongLong());
    };
    connect(m_list, &QListWidget::itemClicked, host, openDiff);
    connect(m_list, &QListWidget::itemActivated, host, openDiff);
    addFooter(m_list);
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
    QList<qint64> ids;
    for (const auto& m : s.recentReorgs)
        ids << m.id;
    if (ids != m_listedIds) {
        m_listedIds = ids;
        m_list->clear();
        for (auto it = s.recentReorgs.crbegin(); it != s.recentReorgs.crend(); ++it) {
            auto* item = new QListWidgetItem(
                tr("#%1  %2  %3, depth %4, fork at block %5")
                    .arg(it->id)
                    .arg(it->detectedAt.toLocalTime().toString(QStringLiteral("HH:mm:ss")),
                         it->reason)
                    .arg(it->depth)
                    .arg(it->forkBlock));
            item->setData(Qt::UserRole, it->id);
            item->setToolTip(tr("detected %1 UTC; click for the diff")
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
