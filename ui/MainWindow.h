#pragma once

#include "config/AppSettings.h"
#include "engine/EngineStatus.h"
#include "engine/TablePage.h"
#include "report/CheckpointReport.h"

#include <QHash>
#include <QMainWindow>
#include <QPointer>

#include <optional>

class QLabel;
class QSpinBox;
class QTableWidget;

namespace forkscope::engine {
class EngineHost;
}

namespace forkscope::ui {

class EnvironmentWindow;
class EventLogView;
class PlotPanel;
class ReorgDiffDialog;
class StateStrip;
class DataIncompleteBanner;
class TableBrowser;

// The Forkscope main window. It shows what the engine reports, by snapshot, and nothing
// it did not receive: every label traces back to an EngineStatus or a TablePage.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    // Wires the window to an engine both ways (snapshots in, requests out), all queued.
    // The app and the GUI tests use this same wiring.
    void attachEngine(engine::EngineHost* host);

    // Text shown in the status bar's fields (also read by tests).
    QString nodeText() const;
    QString chainText() const;
    QString environmentText() const;
    QString lagText() const;
    QString lastErrorText() const;
    QString checkpointText() const { return m_checkpointText; }
    QList<PlotPanel*> panels() const { return m_panels; }
    QTableWidget* nodeTable() const { return m_nodeTable; }
    QTableWidget* environmentTable() const { return m_envTable; }
    QList<EnvironmentWindow*> environmentWindows() const;
    StateStrip* stateStrip() const { return m_stateStrip; }
    EventLogView* eventLog() const { return m_log; }
    TableBrowser* transfersBrowser() const { return m_transfers; }
    TableBrowser* balancesBrowser() const { return m_balances; }
    TableBrowser* backfillBrowser() const { return m_backfill; }
    QString checkpointField(const QString& name) const;
    QAction* pauseAction() const { return m_pauseAction; }
    QAction* devnetAction() const { return m_devnetAction; }
    QAction* labAction(const QString& name) const { return m_labActions.value(name); }
    // The invariant verdict badge ("invariants hold" / "VIOLATED" / "checking...").
    QString verdictText() const;
    engine::InvariantVerdict::State verdictState() const { return m_verdict.state; }
    // The reorg id behind bar `index` of reason set `bars` (what a click opens).
    qint64 reorgIdAt(int bars, int index) const { return m_reorgIds.value(bars).value(index, -1); }
    ReorgDiffDialog* lastDiffDialog() const;
    // Node table columns.
    enum NodeColumn {
        NodeUrl,
        NodeStateCol,
        NodeHead,
        NodeLatency,
        NodeHalvings,
        NodeTruncations,
        NodeTimeouts,
        NodeInconsistent,
        NodeError
    };

    DataIncompleteBanner* dataIncompleteBanner() const { return m_banner; }
    QAction* verifyStoredDataAction() const { return m_verifyAction; }

public slots:
    void applyStatus(const forkscope::engine::EngineStatus& status);
    void appendLog(const QString& level, const QString& text);
    void showReorgDiff(const forkscope::engine::ReorgDiff& diff);
    void applyTablePage(const forkscope::engine::TablePage& page);
    void applyReport(quint64 ticket, const forkscope::report::CheckpointReport& report);
    void reportFailed(quint64 ticket, const QString& error);
    // File > Export checkpoint report: the format follows the suffix (.json, .csv, .pdf).
    // The engine builds the report (re-verifying each checkpoint hash against the node
    // now); the file is written when it arrives; exportFinished says how it went.
    void exportReport(const QString& path);
    // View > Environments: opens one environment read-only in its own window.
    void openEnvironment(const QString& environmentId);

signals:
    void closing();
    // The user accepted new settings (already saved with QSettings).
    void settingsChanged(const forkscope::config::AppSettings& settings);
    void indexingPauseRequested(bool paused);
    void devnetRunningRequested(bool running);
    void engineRestartRequested();
    void engineStopRequested();
    void reorgDiffRequested(qint64 reorgId);
    void tablePageRequested(const forkscope::engine::TableRequest& request);
    // Lab controls.
    void demoTrafficRequested(bool on, int transfersPerTick);
    void reorgInjectionRequested(int depth, int txMode);
    void rollbackRequested(int blocks);
    void proxyKnobsRequested(int node, const QJsonObject& changes);
    void crashRequested(const QString& point);
    void invariantCheckRequested(const QString& reason);
    void labResetRequested();

    void exportFinished(const QString& path, bool ok, const QString& message);
    // Repair... in the data-incomplete banner: roll back to before `fromBlock` and fetch
    // again from `node`.
    void repairRequested(quint64 fromBlock, const QString& node);
    void verifyReceiptsRequested(bool on);
    void verifyStoredDataRequested();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    // Reports in flight, by ticket: where each answer goes (an export path, or the
    // environment window it fills). Answers for tickets no longer here are dropped.
    struct ReportJob
    {
        QString exportPath;    // non-empty: an export
        QString environmentId; // an environment window
    };
    QHash<quint64, ReportJob> m_reportJobs;
    QPointer<engine::EngineHost> m_host;

    void buildPanels();
    void buildDocks();
    void buildActions();
    void buildLab();
    void applyLab(const engine::EngineStatus& s);
    void applyLag(const engine::EngineStatus& s, double t);
    void applyReorgs(const engine::EngineStatus& s);
    void applyOutbox(const engine::EngineStatus& s, double t);
    void applyCheckpoint(const engine::EngineStatus& s);
    void applyHealth(const engine::EngineStatus& s, double timeSecs);

    QList<PlotPanel*> m_panels;
    StateStrip* m_stateStrip = nullptr;
    DataIncompleteBanner* m_banner = nullptr;
    QAction* m_verifyAction = nullptr;
    QLabel* m_connectionLabel;
    QLabel* m_nodeLabel;
    QLabel* m_chainLabel;
    QLabel* m_envLabel;
    QLabel* m_headLabel;
    QLabel* m_lagLabel;
    QLabel* m_dbLabel;
    QLabel* m_errorLabel = nullptr; // the last error, until the next one
    EventLogView* m_log;
    QTableWidget* m_nodeTable;
    QTableWidget* m_envTable = nullptr;
    QList<QPointer<EnvironmentWindow>> m_envWindows;
    QList<TableBrowser*> allBrowsers() const;
    TableBrowser* m_transfers = nullptr;
    TableBrowser* m_balances = nullptr;
    TableBrowser* m_backfill = nullptr;
    QHash<QString, class QLabel*> m_checkpointFields;
    QHash<QString, int> m_nodeSeries; // node URL -> series in the node health panel
    QString m_checkpointText;
    QString m_environment;
    QAction* m_pauseAction = nullptr;
    QAction* m_devnetAction = nullptr;
    // The engine's pause state as last seen in a snapshot: the action follows the engine only
    // when that changes (a lab reset resumes indexing), so a snapshot already in flight when
    // the user toggles does not flip the action back.
    std::optional<bool> m_enginePaused;
    QHash<QString, QAction*> m_labActions;
    QSpinBox* m_demoRate = nullptr;
    int m_engineDemoRate = 0;
    QLabel* m_verdictBadge = nullptr;
    engine::InvariantVerdict m_verdict;
    QStringList m_labNodes;
    // As last received; the Environments table is rebuilt only when this changes.
    QList<engine::EngineStatus::EnvironmentEntry> m_environments;
    QList<QJsonObject> m_proxyKnobs;
    QList<QList<qint64>> m_reorgIds{{}, {}, {}};
    QPointer<ReorgDiffDialog> m_diffDialog;
};

} // namespace forkscope::ui
