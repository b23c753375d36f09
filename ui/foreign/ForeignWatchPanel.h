#pragma once

#include "Palette.h"
#include "engine/EngineStatus.h"
#include "foreign/ForeignBlockView.h"
#include "foreign/ForeignWatchSnapshot.h"
#include "foreign/ForeignWatchSpec.h"

#include <QPointer>
#include <QWidget>
#include <optional>

class QLabel;
class QTableView;

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

class ForeignFindingsModel;
class PlotPanel;

// A watched foreign indexer (Lab > Watch another indexer...): a banner with the state of the
// last check, a chart of its lag behind the lab's head and of its findings count over time,
// and the current findings; double-click one to see it next to what the chain holds
// (ForeignFindingDialog). Fed by the engine's snapshots of its watch id only.
// Never green over a gap: while a check cannot run (the database or the node unreachable)
// the banner says so in red, the chart gets no point (its lines break) and the findings
// are labelled as the last check's, not as a clean state. Closing it ends the watch.
class ForeignWatchPanel : public QWidget
{
    Q_OBJECT
public:
    enum Series { Lag, Findings };

    // Shows the watch `watchId` that `host` started (EngineApi::watchForeignIndexer) of
    // `target` (shown without a password), and ends it when closed.
    ForeignWatchPanel(engine::EngineApi* host, quint64 watchId, const QString& target,
                      QWidget* parent = nullptr);
    ~ForeignWatchPanel() override;
    // "Watch another indexer...": asks for the spec (WatchIndexerDialog) and opens the panel
    // in a window of its own; nullptr when the dialog was cancelled. `reorgs`: the
    // environment's recent rollbacks as its last status listed them (later statuses update
    // them).
    static ForeignWatchPanel* askAndWatch(engine::EngineApi* host,
                                          const QList<engine::ReorgMark>& reorgs, QWidget* parent);

    quint64 watchId() const { return m_id; }
    PlotPanel* chart() const { return m_chart; }
    QTableView* findingsView() const { return m_view; }
    ForeignFindingsModel* findings() const { return m_model; }
    QString bannerText() const;
    // The banner's tone for a snapshot, and its words. Pure, for the tests.
    static Palette::Tone tone(const foreign::ForeignWatchSnapshot& s);
    static QString describe(const foreign::ForeignWatchSnapshot& s);
    // The newest of `reorgs` whose replaced blocks (after its fork block, its depth of them)
    // hold `block`. Pure, for the tests.
    static std::optional<engine::ReorgMark>
    reorgThatReplaced(const QList<engine::ReorgMark>& reorgs, quint64 block);

public slots:
    void apply(const forkscope::foreign::ForeignWatchSnapshot& snapshot);
    // Asks the engine for the finding's block; the dialog opens when the answer comes.
    void openFinding(int row);
    void applyBlock(const forkscope::foreign::ForeignBlockView& view);

signals:
    // A finding's dialog opened (for the tests).
    void findingOpened(QDialog* dialog);

private:
    QPointer<engine::EngineApi> m_host;
    quint64 m_id = 0;
    bool m_ended = false;
    QLabel* m_banner;
    PlotPanel* m_chart;
    ForeignFindingsModel* m_model;
    QTableView* m_view;
    std::optional<foreign::ForeignFinding> m_pending; // the finding whose block was asked for
    QList<engine::ReorgMark> m_reorgs; // the environment's recent rollbacks, from its status
};

} // namespace forkscope::ui
