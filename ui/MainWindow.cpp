#include "MainWindow.h"
#include "CheckpointView.h"
#include "DiscardLabConfirm.h"
#include "EngineErrorBanner.h"
#include "EngineToolBar.h"
#include "EnvironmentWindow.h"
#include "EventLogView.h"
#include "Palette.h"
#include "SettingsDialog.h"
#include "SharedDatabasePrompt.h"
#include "TableBrowser.h"
#include "TrayStatus.h"
#include "completeness/DataIncompleteBanner.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"
#include "help/Glossary.h"
#include "help/HelpDialog.h"
#include "lab/DeepReorgBanner.h"
#include "lab/LabToolBar.h"
#include "lab/VerdictBadge.h"
#include "models/EnvironmentListModel.h"
#include "models/NodeTableModel.h"
#include "models/PagedTableModel.h"
#include "panels/CursorLagPanel.h"
#include "panels/NodeHealthPanel.h"
#include "panels/OutboxPanel.h"
#include "panels/PanelGrid.h"
#include "panels/ReorgPanel.h"
#include "report/ExportNotice.h"
#include "report/ReportExporter.h"
#include "widgets/ElidedLabel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDockWidget>
#include <QFileDialog>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QVBoxLayout>

#include "forkscope_version.h"

namespace forkscope::ui {

using engine::EngineApi;
using engine::EngineStatus;

MainWindow::MainWindow(EngineApi* host, QWidget* parent) : QMainWindow(parent), m_host(host)
{
    Q_ASSERT(host);
    setWindowTitle(QStringLiteral("Forkscope"));
    // The size it was designed at, but never larger than a laptop's screen.
    resize(QSize(1280, 860).boundedTo(screen()->availableGeometry().size()));
    buildCentral();
    m_engineBar = new EngineToolBar(host, this);
    m_labBar = new LabToolBar(host, this);
    // One row each: side by side they overflow a laptop's width.
    addToolBar(m_engineBar);
    addToolBarBreak();
    addToolBar(m_labBar);
    connect(m_engineBar, &EngineToolBar::restartRequested, this,
            &MainWindow::engineRestartRequested);
    connect(m_engineBar, &EngineToolBar::stopRequested, this, &MainWindow::engineStopRequested);
    m_reports = new ReportExporter(host, this);
    connect(m_reports, &ReportExporter::logMessage, this, &MainWindow::appendLog);
    buildStatusBar();
    buildMenus(buildDocks());
    m_tray = new TrayStatus(host, this);
    // Every part above connected itself to the host; the window keeps the status bar. The
    // host emits on this thread (it forwards the engine thread's signals queued), so direct
    // connections are enough.
    connect(host, &EngineApi::statusAvailable, this, &MainWindow::applyStatus);
    connect(host, &EngineApi::logMessage, this, &MainWindow::appendLog);
    applyStatus(EngineStatus{});
}

void MainWindow::buildCentral()
{
    auto* central = new QWidget(this);
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    m_banner = new DataIncompleteBanner(central);
    connect(m_banner, &DataIncompleteBanner::repairRequested, m_host, &EngineApi::repair);
    column->addWidget(m_banner);
    m_engineError = new EngineErrorBanner(central);
    connect(m_engineError, &EngineErrorBanner::chooseDatabaseRequested, this,
            &MainWindow::chooseDatabase);
    connect(m_engineError, &EngineErrorBanner::settingsRequested, this, &MainWindow::openSettings);
    connect(m_engineError, &EngineErrorBanner::retryRequested, this, [this] {
        appendLog(QStringLiteral("info"), tr("retry: starting the engine again"));
        emit engineRestartRequested();
    });
    connect(m_engineError, &EngineErrorBanner::startDevnetRequested, m_host,
            [this] { m_host->setDevnetRunning(true); });
    column->addWidget(m_engineError);
    m_deepReorg = new DeepReorgBanner(m_host, central);
    column->addWidget(m_deepReorg);
    m_lag = new CursorLagPanel(m_host, central);
    m_reorgs = new ReorgPanel(m_host, central);
    m_outbox = new OutboxPanel(m_host, central);
    connect(m_outbox, &OutboxPanel::settingsRequested, this, &MainWindow::openSettings);
    m_health = new NodeHealthPanel(m_host, central);
    column->addWidget(new PanelGrid(panels(), central), 1);
    setCentralWidget(central);
}

QList<QDockWidget*> MainWindow::buildDocks()
{
    const auto dock = [this](const QString& title, const QString& name, QWidget* w) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(Qt::BottomDockWidgetArea, d);
        return d;
    };
    const auto table = [this](QAbstractItemModel* model, const QString& name, const QString& tip) {
        auto* view = new QTableView(this);
        view->setObjectName(name);
        view->setModel(model);
        view->horizontalHeader()->setStretchLastSection(true);
        view->setEditTriggers(QAbstractItemView::NoEditTriggers);
        view->setToolTip(tip);
        return view;
    };
    m_log = new EventLogView(this);
    QDockWidget* logDock = dock(tr("Event log"), QStringLiteral("eventLogDock"), m_log);
    // Nodes: one row per watched endpoint, its state coloured as in the legend.
    m_nodeModel = new NodeTableModel(this);
    connect(m_host, &EngineApi::statusAvailable, m_nodeModel, &NodeTableModel::applyStatus);
    QDockWidget* nodesDock =
        dock(tr("Nodes"), QStringLiteral("nodesDock"),
             table(m_nodeModel, QStringLiteral("nodeTable"), NodeTableModel::legend()));
    m_checkpoint = new CheckpointView(m_host, this);
    QDockWidget* cpDock = dock(tr("Checkpoint"), QStringLiteral("checkpointDock"), m_checkpoint);

    m_transfers = new TableBrowser(engine::TableRequest::Kind::Transfers,
                                   tr("Filter by address or tx hash"), this);
    m_balances = new TableBrowser(engine::TableRequest::Kind::Balances,
                                  tr("Filter by token or holder"), this);
    m_backfill = new TableBrowser(engine::TableRequest::Kind::Backfill,
                                  tr("Filter by status or error"), this);
    for (TableBrowser* b : {m_transfers, m_balances, m_backfill}) {
        b->connectTo(m_host);
        connect(b, &TableBrowser::reorgDiffRequested, m_host, &EngineApi::requestReorgDiff);
    }
    QDockWidget* transfersDock =
        dock(tr("Transfers"), QStringLiteral("transfersDock"), m_transfers);
    QDockWidget* balancesDock = dock(tr("Balances"), QStringLiteral("balancesDock"), m_balances);
    QDockWidget* backfillDock =
        dock(tr("Backfill ledger"), QStringLiteral("backfillDock"), m_backfill);

    // Environments: the live one and every archived one; double-click opens it read-only.
    m_envModel = new EnvironmentListModel(this);
    connect(m_host, &EngineApi::statusAvailable, m_envModel, &EnvironmentListModel::applyStatus);
    QTableView* envView =
        table(m_envModel, QStringLiteral("environmentTable"),
              tr("Double-click an environment to open it read-only in its own window"));
    envView->setSelectionBehavior(QAbstractItemView::SelectRows);
    // Environment ids are the way to tell runs apart: never cut to "lab-2026120...".
    connect(m_envModel, &QAbstractItemModel::rowsInserted, envView,
            &QTableView::resizeColumnsToContents);
    connect(m_envModel, &QAbstractItemModel::modelReset, envView,
            &QTableView::resizeColumnsToContents);
    connect(envView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        openEnvironment(m_envModel->environmentId(index.row()));
    });
    QDockWidget* envDock = dock(tr("Environments"), QStringLiteral("environmentsDock"), envView);

    const QList<QDockWidget*> docks{logDock,      nodesDock,    cpDock, transfersDock,
                                    balancesDock, backfillDock, envDock};
    for (qsizetype i = 1; i < docks.size(); ++i)
        tabifyDockWidget(docks[i - 1], docks[i]);
    logDock->raise();
    resizeDocks({logDock}, {200}, Qt::Vertical); // the charts get most of the window
    // Tab walks into every tab's contents, including the tabs not shown (Qt keeps them
    // "visible" off-screen): the tab that takes the focus comes to the front, so the focus
    // is never somewhere the user cannot see.
    connect(qApp, &QApplication::focusChanged, this, [docks](QWidget*, QWidget* now) {
        for (QWidget* w = now; w; w = w->parentWidget())
            if (auto* d = qobject_cast<QDockWidget*>(w)) {
                if (docks.contains(d) && d->visibleRegion().isEmpty())
                    d->raise();
                return;
            }
    });
    return docks;
}

void MainWindow::buildMenus(const QList<QDockWidget*>& docks)
{
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addAction(tr("&Open database..."), QKeySequence::Open, this,
                        &MainWindow::chooseDatabase);
    fileMenu
        ->addAction(tr("Open s&hared database (PostgreSQL)..."), this,
                    [this] {
                        if (const auto url = askSharedDatabaseUrl(this, m_lastStatus.dbPath))
                            openDatabase(*url);
                    })
        ->setObjectName(QStringLiteral("openSharedDatabase"));
    m_recentMenu = fileMenu->addMenu(tr("Open &recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentDatabases"));
    rebuildRecentMenu();
    QAction* settings = fileMenu->addAction(tr("&Settings..."), this, &MainWindow::openSettings);
    // Explicitly: QKeySequence::Preferences is empty on some platforms (this one).
    settings->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
    QAction* exportAction = fileMenu->addAction(tr("&Export checkpoint report..."), this,
                                                [this] { exportReportOf(QString()); });
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAction->setObjectName(QStringLiteral("exportReport"));
    QAction* quit = fileMenu->addAction(tr("&Quit"), this, [this] {
        if (m_engineBar->discardsLab() && !confirmDiscardLab(this, tr("Quit")))
            return;
        m_quitConfirmed = true;
        close();
    });
    quit->setShortcut(QKeySequence::Quit);

    auto* viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d : docks)
        viewMenu->addAction(d->toggleViewAction());
    // Alt+1..7 bring a tab below the charts to the front (and show it if it was closed).
    viewMenu->addSeparator();
    for (qsizetype i = 0; i < docks.size() && i < 9; ++i) {
        QDockWidget* d = docks[i];
        QAction* raise = viewMenu->addAction(tr("Go to %1").arg(d->windowTitle()), this, [d] {
            d->show();
            d->raise();
            if (d->widget())
                d->widget()->setFocus();
        });
        raise->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + int(i))));
    }
    viewMenu->addSeparator();
    viewMenu->addAction(tr("Follow live on all charts"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                        [this] {
                            for (PlotPanel* p : panels())
                                p->setFollowLive(true);
                        });
    menuBar()->addMenu(m_engineBar->menu());
    menuBar()->addMenu(m_labBar->menu());
    auto* helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&Getting started"), QKeySequence::HelpContents, this, [this] {
        (new HelpDialog(tr("Getting started"), gettingStartedHtml(), this))->show();
    });
    helpMenu->addAction(tr("G&lossary"), this,
                        [this] { (new HelpDialog(tr("Glossary"), glossaryHtml(), this))->show(); });
    helpMenu->addAction(tr("&About Forkscope"), this, [this] {
        QMessageBox::about(this, tr("About Forkscope"),
                           tr("Forkscope %1\nA desktop monitor and local lab indexer for EVM "
                              "chains.")
                               .arg(QStringLiteral(FORKSCOPE_VERSION)));
    });
}

void MainWindow::openSettings()
{
    QSettings store;
    SettingsDialog dialog(config::AppSettings::load(store), this);
    dialog.setInUse(m_lastStatus.managedDevnet
                        ? tr("%1 (the managed anvil lab)").arg(m_lastStatus.endpoint)
                        : m_lastStatus.endpoint,
                    m_lastStatus.contracts, m_lastStatus.dbPath);
    if (dialog.exec() != QDialog::Accepted)
        return;
    dialog.settings().save(store);
    appendLog(QStringLiteral("info"), tr("settings saved; restarting the engine"));
    emit settingsChanged(dialog.settings());
}

void MainWindow::exportReportOf(const QString& environmentId)
{
    QString filter;
    const QString typed = QFileDialog::getSaveFileName(
        this,
        environmentId.isEmpty() ? tr("Export checkpoint report")
                                : tr("Export the report of %1").arg(environmentId),
        QStringLiteral("forkscope-report.pdf"),
        tr("PDF report (*.pdf);;JSON, machine-readable (*.json);;CSV, one row per checkpoint "
           "and reorg (*.csv)"),
        &filter);
    if (!typed.isEmpty())
        m_reports->exportReport(ReportExporter::withFormatSuffix(typed, filter), environmentId);
}

void MainWindow::buildStatusBar()
{
    // Long texts give up width (the window must fit a laptop); the state, chain,
    // environment and lag are short and always whole.
    for (QLabel** l : {&m_connectionLabel, &m_chainLabel, &m_envLabel, &m_lagLabel})
        *l = new QLabel(this);
    for (QLabel** l : {&m_nodeLabel, &m_headLabel, &m_errorLabel, &m_dbLabel})
        *l = new ElidedLabel(this);
    m_dbLabel->setObjectName(QStringLiteral("dbLabel"));
    for (QLabel* l :
         {m_connectionLabel, m_nodeLabel, m_chainLabel, m_envLabel, m_headLabel, m_lagLabel})
        statusBar()->addWidget(l);
    m_errorLabel->setObjectName(QStringLiteral("errorLabel"));
    m_errorLabel->setStyleSheet(
        QStringLiteral("color: %1").arg(Palette::screen(Palette::Tone::Bad).name()));
    m_errorLabel->hide();
    m_exportNotice = new ExportNotice(this);
    connect(m_exportNotice, &ExportNotice::openRequested, this,
            [](const QUrl& url) { QDesktopServices::openUrl(url); });
    connect(m_reports, &ReportExporter::exportFinished, this, [this](const QString& path, bool ok) {
        if (ok)
            m_exportNotice->showExported(path);
    });
    statusBar()->addPermanentWidget(m_exportNotice);
    statusBar()->addPermanentWidget(m_errorLabel);
    statusBar()->addPermanentWidget(m_dbLabel);
    m_connectionLabel->setObjectName(QStringLiteral("connectionLabel"));
    m_envLabel->setObjectName(QStringLiteral("envLabel"));
    m_lagLabel->setObjectName(QStringLiteral("lagLabel"));
}

void MainWindow::applyStatus(const EngineStatus& s)
{
    // The same state the cursor panel's header shows (engine/DisplayState.h).
    const engine::DisplayState state = engine::displayState(s);
    m_connectionLabel->setText(state.kind == engine::DisplayState::Kind::Failed ? tr("failed")
                                                                                : state.text());
    QStringList why;
    if (state.kind == engine::DisplayState::Kind::DataIncomplete && !s.openAlerts.isEmpty())
        why << s.openAlerts.first().summary();
    else if (!state.reason.isEmpty())
        why << state.reason;
    why << state.also;
    m_connectionLabel->setToolTip(why.join(QLatin1Char('\n')));
    m_connectionLabel->setStyleSheet(Palette::stateStyle(state.tone()));
    // A failure looks like one: the banner with what can fix it, and panels that say why no
    // data comes instead of "waiting".
    m_engineError->apply(s);
    followErrorCause(state);
    const bool blocked = state.kind == engine::DisplayState::Kind::Failed ||
                         state.kind == engine::DisplayState::Kind::NodeUnreachable ||
                         state.kind == engine::DisplayState::Kind::DevnetStopped;
    for (PlotPanel* p : panels())
        p->setProblem(blocked ? state.text() : QString());
    if (!s.dbPath.isEmpty() && s.dbPath != m_lastStatus.dbPath)
        rememberDatabase(s.dbPath);
    m_lastStatus = s;
    m_nodeLabel->setText(engine::text::nodeLabel(s));
    m_chainLabel->setText(s.chainId ? tr("chain id %1").arg(*s.chainId) : tr("chain id unknown"));
    m_envLabel->setText(s.environmentId.isEmpty() ? tr("no environment")
                                                  : tr("env %1").arg(s.environmentId));
    QString head = s.headBlock ? tr("head %1").arg(*s.headBlock) : tr("head unknown");
    if (s.connection == EngineStatus::Connection::Unreachable && s.headBlock)
        head += tr(" (stale)");
    m_dbLabel->setText(s.dbPath.isEmpty() ? QString() : tr("db: %1").arg(s.dbPath));
    // Never green over a gap: the banner, and the status bar's state, while any range is
    // not proven complete.
    m_banner->setAlerts(s.openAlerts, s.health.nodes);
    if (s.environmentId.isEmpty()) {
        m_headLabel->setText(head);
        m_lagLabel->setText(engine::text::lag(std::nullopt));
        return;
    }
    if (s.environmentId != m_environment) {
        // A new environment (restart, reset): the tables show the new one from page one.
        m_environment = s.environmentId;
        for (TableBrowser* b : {m_transfers, m_balances, m_backfill})
            b->model()->refresh();
    }
    for (TableBrowser* b : {m_transfers, m_balances})
        b->setReorgs(s.recentReorgs);
    m_lagLabel->setText(engine::text::lag(engine::displayLag(s)));
    m_checkpointText =
        s.checkpoint ? tr("checkpoint %1").arg(*s.checkpoint) : tr("nothing indexed yet");
    m_headLabel->setText(head + QStringLiteral(" | ") + m_checkpointText);
}

void MainWindow::openEnvironment(const QString& environmentId)
{
    auto* w =
        new EnvironmentWindow(environmentId, m_envModel->isArchived(environmentId), m_host, this);
    connect(w, &EnvironmentWindow::exportRequested, this, &MainWindow::exportReportOf);
    m_envWindows.append(w);
    w->show();
    m_reports->requestFor(w);
}

QList<EnvironmentWindow*> MainWindow::environmentWindows() const
{
    QList<EnvironmentWindow*> out;
    for (const auto& w : m_envWindows)
        if (w)
            out << w;
    return out;
}

void MainWindow::appendLog(const QString& level, const QString& text)
{
    m_log->append(level, text);
    if (level == QLatin1String("error")) {
        // Every error is visible where the user looks, not only in the log dock (or stderr),
        // until its cause is gone (followErrorCause).
        m_errorLabel->setText(QStringLiteral("\u26a0 ") + text);
        m_errorLabel->setToolTip(text);
        m_errorLabel->show();
        m_errorState = engine::displayState(m_lastStatus).kind;
        m_errorSawTrouble = false;
    }
}

void MainWindow::followErrorCause(const engine::DisplayState& state)
{
    // An error is shown until the state it came with is over: once a state that is not
    // red follows a red one seen since the error (the cap removed, the repair done, the
    // limit raised, a new chain), or the calm state it was logged in changes. An action
    // refused while all is well stays until then or the next error.
    if (m_errorLabel->isHidden())
        return;
    if (state.tone() == engine::DisplayState::Tone::Bad) {
        m_errorSawTrouble = true;
        return;
    }
    if (m_errorSawTrouble || state.kind != m_errorState) {
        m_errorLabel->hide();
        m_errorLabel->clear();
        m_errorLabel->setToolTip(QString());
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    // The window manager's close button asks as File > Quit does; a close from the program
    // (a signal, --screenshot) does not.
    if (event->spontaneous() && !m_quitConfirmed && m_engineBar->discardsLab() &&
        !confirmDiscardLab(this, tr("Quit"))) {
        event->ignore();
        return;
    }
    emit closing();
    event->accept();
}

QList<PlotPanel*> MainWindow::panels() const
{
    return {m_lag, m_reorgs, m_outbox, m_health};
}

QString MainWindow::nodeText() const
{
    return m_nodeLabel->text();
}

QString MainWindow::chainText() const
{
    return m_chainLabel->text();
}

QString MainWindow::environmentText() const
{
    return m_envLabel->text();
}

QString MainWindow::lagText() const
{
    return m_lagLabel->text();
}

QString MainWindow::lastErrorText() const
{
    return m_errorLabel->toolTip();
}

QString MainWindow::checkpointField(const QString& name) const
{
    return m_checkpoint->field(name);
}

QAction* MainWindow::labAction(const QString& name) const
{
    return m_labBar->action(name);
}

QString MainWindow::exportNoticeText() const
{
    return m_exportNotice->text();
}

QString MainWindow::engineErrorText() const
{
    return m_engineError->text();
}

QWidget* MainWindow::verdictBadge() const
{
    return m_labBar->verdictBadge();
}

engine::InvariantVerdict::State MainWindow::verdictState() const
{
    return m_labBar->verdictBadge()->state();
}

} // namespace forkscope::ui
