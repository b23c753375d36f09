#pragma once

#include "engine/DisplayState.h"
#include "engine/EngineStatus.h"
#include "forktree/ForkTreeWindow.h"
#include "health/NodeState.h"
#include "report/CheckpointReport.h"

#include <QColor>
#include <QList>
#include <QString>
#include <QStringList>

namespace forkscope::ui {

// Every colour that carries a meaning (node, indexer and verdict states, reorg reasons, chart
// series, log levels) and the words that go with it, in one place: the live window, its
// legends, the dialogs and the printed report then always agree.
class Palette
{
public:
    // How good or bad a thing is. On screen the darker Material shades (readable as text on
    // any background); on paper and in charts the brighter tab10 ones.
    enum class Tone { Good, Bad, Caution, Muted };
    static QColor screen(Tone tone);
    static QColor print(Tone tone);

    // Node states: one colour and one sentence each, for the node table, the state strip and
    // its legend. nodeStates() is the legend's order.
    static QColor nodeState(health::NodeState state);
    static QString nodeStateMeaning(health::NodeState state);
    static const QList<health::NodeState>& nodeStates();

    // The indexer's "data incomplete" state (an open completeness alert): the banner, the
    // status bar, the repair warning and the report's title page.
    static QColor dataIncomplete();
    // A red banner's style sheet: its background, and white bold text on its own labels
    // only. Only the banner's direct children: a dialog the banner opens (Repair...) is its
    // child too, and must keep its dark text on its own light background.
    static QString bannerStyle(const QString& objectName);

    // The status bar's state label (engine/DisplayState.h): white on the tone's colour for
    // the states that need attention, plain text while starting or syncing.
    static QString stateStyle(engine::DisplayState::Tone tone);

    // The lab's invariant verdict badge, and the report's invariant and checkpoint verdicts.
    static QColor verdict(engine::InvariantVerdict::State state);
    static QColor reportVerdict(report::InvariantState state);
    static QColor verification(report::VerificationStatus status);

    // An event log level's colour; invalid for levels shown plain (info).
    static QColor logLevel(const QString& level);

    // Reorg reasons (reorg_events.reason): the ones the live reorg panel draws, in its bar
    // order, and each one's colour (grey for any other reason).
    static const QStringList& liveReorgReasons();
    static QColor reorgReason(const QString& reason);
    // The same colours for a fork tree branch, by the reason of the rollback that removed it,
    // and the words its legend uses.
    static QColor branchReason(forktree::BranchReason reason);
    static QString branchReasonName(forktree::BranchReason reason);

    // Chart series, live and printed.
    enum class Series {
        Head,
        Checkpoint,
        Lag,
        OutboxPending,
        DeliveredRate,
        SafeHeight,
        DeliveredTotal,
    };
    static QColor series(Series series);
    // The n-th node's height series in the node health panel (spread around the hue wheel).
    static QColor nodeSeries(int n);
};

} // namespace forkscope::ui
