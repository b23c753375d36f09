#pragma once

#include "config/AppSettings.h"
#include "engine/DisplayState.h"
#include "engine/EngineStatus.h"
#include "engine/SourceSpec.h"

#include <QList>
#include <QMainWindow>
#include <QPointer>

class QLabel;
class QMenu;

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

class BottomDrawer;
class CheckpointView;
class ContractsView;
class ForkTreeView;
class CursorLagPanel;
class DataIncompleteBanner;
class DeepReorgBanner;
class EngineErrorBanner;
class ExportNotice;
class EngineToolBar;
class EnvironmentListModel;
class EnvironmentWindow;
class EventLogView;
class LabToolBar;
class NodeHealthPanel;
class NodeTableModel;
class OutboxPanel;
class PlotPanel;
class ReorgPanel;
class ReportExporter;
class TableBrowser;
class TimeRange;
class TrayStatus;

// The Forkscope main window: assembles the parts (panels, the drawer of tabs under them,
// toolbars, the report
// exporter), each of which takes the engine host and connects itself to its signals, and
// keeps the menus and the status bar. It shows what the engine reports, by snapshot, and
// nothing it did not receive. `host` must outlive the window.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(engine::EngineApi* host, QWidget* parent = nullptr);

    // Text shown in the status bar's fields (also read by tests).
    QString nodeText() const;
    QString chainText() const;
    QString environmentText() const;
    QString lagText() const;
    QString lastErrorText() const;
    QString checkpointText() const { return m_checkpointText; }

    // The parts. The panels: cursor lag, reorg events, outbox backlog, node health.
    QList<PlotPanel*> panels() const;
    ReorgPanel* reorgPanel() const { return m_reorgs; }
    NodeHealthPanel* nodeHealthPanel() const { return m_health; }
    NodeTableModel* nodeModel() const { return m_nodeModel; }
    EnvironmentListModel* environmentModel() const { return m_envModel; }
    ContractsView* contractsView() const { return m_contracts; }
    ForkTreeView* forkTreeView() const { return m_forkTree; }
    CheckpointView* checkpointView() const { return m_checkpoint; }
    EngineToolBar* engineToolBar() const { return m_engineBar; }
    LabToolBar* labToolBar() const { return m_labBar; }
    ReportExporter* reportExporter() const { return m_reports; }
    DataIncompleteBanner* dataIncompleteBanner() const { return m_banner; }
    DeepReorgBanner* deepReorgBanner() const { return m_deepReorg; }
    EventLogView* eventLog() const { return m_log; }
    // The tabs under the charts (event log, nodes, checkpoint, the tables, environments).
    BottomDrawer* drawer() const { return m_drawer; }
    // The one time range of the four charts.
    TimeRange* timeRange() const { return m_timeRange; }
    TableBrowser* transfersBrowser() const { return m_transfers; }
    TrayStatus* trayStatus() const { return m_tray; }
    TableBrowser* balancesBrowser() const { return m_balances; }
    TableBrowser* backfillBrowser() const { return m_backfill; }
    QList<EnvironmentWindow*> environmentWindows() const;

    // Shortcuts into the parts, for the GUI tests.
    QString checkpointField(const QString& name) const;
    QAction* labAction(const QString& name) const;
    engine::InvariantVerdict::State verdictState() const;
    QWidget* verdictBadge() const;    // for the tests that check it is on screen
    QString engineErrorText() const;  // the error banner's text, empty while hidden
    QString exportNoticeText() const; // "Exported <path>" after an export, else empty
    // File > Open recent: the databases opened last, newest first (QSettings).
    static QStringList recentDatabases();

public slots:
    void appendLog(const QString& level, const QString& text);
    // View > Environments: opens one environment read-only in its own window.
    void openEnvironment(const QString& environmentId);

signals:
    void closing();
    // The user accepted new settings (already saved with QSettings).
    void settingsChanged(const forkscope::config::AppSettings& settings);
    // Settings saved without a restart (a source added to the running environment): the
    // next start, and Engine > Restart, use them.
    void settingsSaved(const forkscope::config::AppSettings& settings);
    void engineRestartRequested();
    void engineStopRequested();
    // File > Open database... or the error banner's Choose database...: start on this file.
    void databaseChosen(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;

public slots:
    void openSettings();
    void chooseDatabase();
    // File > Export (the live environment, empty id) or an environment window's Export.
    void exportReportOf(const QString& environmentId);

private:
    bool m_quitConfirmed = false;      // File > Quit asked already
    engine::EngineStatus m_lastStatus; // what Settings shows as in use
    QMenu* m_recentMenu = nullptr;
    static constexpr int kMaxRecent = 8;
    void rememberDatabase(const QString& path);
    void rebuildRecentMenu();
    void openDatabase(const QString& path); // logs it, then databaseChosen
    EngineErrorBanner* m_engineError = nullptr;
    ExportNotice* m_exportNotice = nullptr;
    void buildCentral();
    void buildDrawer();
    // "Add contract..." and "Add factory...": the dialog, then what became of the source.
    void addSource(engine::SourceSpec::Kind kind);
    void rememberSource(const engine::SourceSpec& spec);
    void buildMenus();
    void buildStatusBar();
    void applyStatus(const engine::EngineStatus& s);
    void followErrorCause(const engine::DisplayState& state);

    engine::EngineApi* m_host;
    CursorLagPanel* m_lag = nullptr;
    ReorgPanel* m_reorgs = nullptr;
    OutboxPanel* m_outbox = nullptr;
    NodeHealthPanel* m_health = nullptr;
    DataIncompleteBanner* m_banner = nullptr;
    DeepReorgBanner* m_deepReorg = nullptr;
    EngineToolBar* m_engineBar = nullptr;
    LabToolBar* m_labBar = nullptr;
    ReportExporter* m_reports = nullptr;
    CheckpointView* m_checkpoint = nullptr;
    EventLogView* m_log = nullptr;
    BottomDrawer* m_drawer = nullptr;
    TimeRange* m_timeRange = nullptr;
    NodeTableModel* m_nodeModel = nullptr;
    EnvironmentListModel* m_envModel = nullptr;
    ContractsView* m_contracts = nullptr;
    ForkTreeView* m_forkTree = nullptr;
    TableBrowser* m_transfers = nullptr;
    TableBrowser* m_balances = nullptr;
    TableBrowser* m_backfill = nullptr;
    QList<QPointer<EnvironmentWindow>> m_envWindows;
    QLabel* m_connectionLabel = nullptr;
    TrayStatus* m_tray = nullptr;
    QLabel* m_nodeLabel = nullptr;
    QLabel* m_chainLabel = nullptr;
    QLabel* m_envLabel = nullptr;
    QLabel* m_headLabel = nullptr;
    QLabel* m_lagLabel = nullptr;
    QLabel* m_dbLabel = nullptr;
    QLabel* m_errorLabel = nullptr; // the last error, until its cause is gone
    engine::DisplayState::Kind m_errorState = engine::DisplayState::Kind::Starting;
    bool m_errorSawTrouble = false; // a red state was seen since the error
    QString m_checkpointText;
    QString m_environment; // the one the tables show
};

} // namespace forkscope::ui
