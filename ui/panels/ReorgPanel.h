#pragma once

#include "PlotPanel.h"

#include <QList>
#include <QPointer>

class QListWidget;

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
struct ReorgDiff;
} // namespace forkscope::engine

namespace forkscope::ui {

class ReorgDiffDialog;

// Reorg events: one bar per rollback, its depth, one bar set per reason (Palette's live
// reasons, in that order; the legend names the reasons there are). Clicking a bar asks the host for
// that reorg's diff and opens it.
class ReorgPanel : public PlotPanel
{
    Q_OBJECT
public:
    static constexpr int kListWidth = 190;

    explicit ReorgPanel(engine::EngineApi* host, QWidget* parent = nullptr);

    // The reorg id behind bar `index` of reason set `bars` (what a click opens), or -1.
    qint64 reorgIdAt(int bars, int index) const;
    // The diff view opened last, while it is open.
    ReorgDiffDialog* lastDiffDialog() const;
    // The list beside the bars, newest first: a thin bar is not the only way in.
    QListWidget* reorgList() const { return m_list; }

private:
    void apply(const engine::EngineStatus& s);
    void showDiff(const engine::ReorgDiff& diff);

    QList<QList<qint64>> m_reorgIds; // per bar set, in bar order
    QPointer<ReorgDiffDialog> m_diffDialog;
    QListWidget* m_list;
    QList<qint64> m_listedIds; // what the list shows, to rebuild it only on change
};

} // namespace forkscope::ui
