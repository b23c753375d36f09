#include "MainWindow.h"
#include "BottomDrawer.h"
#include "CheckpointView.h"
#include "DiscardLabConfirm.h"
#include "EngineErrorBanner.h"
#include "EngineToolBar.h"
#include "EnvironmentWindow.h"
#include "EventLogView.h"
#include "Palette.h"
#include "PostgresDatabasePrompt.h"
#include "SettingsDialog.h"
#include "TableBrowser.h"
#include "TrayStatus.h"
#include "completeness/DataIncompleteBanner.h"
#include "contracts/ContractsView.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"
#include "foreign/ForeignWatchPanel.h"
#include "forktree/ForkTreeView.h"
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
#include "panels/TimeRange.h"
#include "panels/TimeRangeBar.h"
#include "report/ExportNotice.h"
#include "report/ReportExporter.h"
#include "widgets/ElidedLabel.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTime>
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
    buildDrawer();
    buildStatusBar();
    buildMenus();
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
    // Banners, the time range bar and the four charts above; the tabs (event log, nodes,
    // tables) in a drawer below that stays closed to its tab row until asked for, so the
    // four charts and the node states fit a laptop's 1280x720 without scrolling.
    auto* charts = new QWidget(this);
    auto* column = new QVBoxLayout(charts);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    m_banner = new DataIncompleteBanner(charts);
    connect(m_banner, &DataIncompleteBanner::repairRequested, m_host, &EngineApi::repair);
    column->addWidget(m_banner);
    m_engineError = new EngineErrorBanner(charts);
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
    m_deepReorg = new DeepReorgBanner(m_host, charts);
    column->addWidget(m_deepReorg);
    m_timeRange = new TimeRange(this);
    column->addWidget(new TimeRangeBar(m_timeRange, charts));
    m_lag = new CursorLagPanel(m_host, charts);
    m_reorgs = new ReorgPanel(m_host, charts);
    m_outbox = new OutboxPanel(m_host, charts);
    connect(m_outbox, &OutboxPanel::settingsRequested, this, &MainWindow::openSettings);
    m_health = new NodeHealthPanel(m_host, charts);
    for (PlotPanel* p : panels())
        p->setTimeRange(m_timeRange);
    column->addWidget(new PanelGrid(panels(), charts), 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("chartsAndDrawer"));
    split->setChildrenCollapsible(false);
    split->addWidget(charts);
    m_drawer = new BottomDrawer(split);
    split->addWidget(m_drawer);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    m_drawer->setSplitter(split);
    setCentralWidget(split);
}

void MainWindow::buildDrawer()
{
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
    m_drawer->addPage(m_log, tr("Event log"));
    // Nodes: one row per watched endpoint, its state coloured as in the legend. Every column
    // as wide as its header and its cells: two lab nodes differ only in their port.
    m_nodeModel = new NodeTableModel(this);
    connect(m_host, &EngineApi::statusAvailable, m_nodeModel, &NodeTableModel::applyStatus);
    QTableView* nodes = table(m_nodeModel, QStringLiteral("nodeTable"), NodeTableModel::legend());
    nodes->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    nodes->horizontalHeader()->setStretchLastSection(true);
    nodes->setTextElideMode(Qt::ElideNone);
    m_drawer->addPage(nodes, tr("Nodes"));
    m_checkpoint = new CheckpointView(m_host, this);
    m_drawer->addPage(m_checkpoint, tr("Checkpoint"));

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
    m_drawer->addPage(m_transfers, tr("Transfers"));
    m_drawer->addPage(m_balances, tr("Balances"));
    m_drawer->addPage(m_backfill, tr("Backfill ledger"));

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
    m_drawer->addPage(envView, tr("Environments"));

    // Contracts: every source with its checkpoint, and a factory's children.
    m_contracts = new ContractsView(this);
    m_contracts->connectTo(m_host);
    connect(m_contracts, &ContractsView::addContractRequested, this,
            [this] { addSource(engine::SourceSpec::Kind::Contract); });
    connect(m_contracts, &ContractsView::addFactoryRequested, this,
            [this] { addSource(engine::SourceSpec::Kind::Factory); });
    m_drawer->addPage(m_contracts, tr("Contracts"));

    // Fork tree: the branches rollbacks removed and each node's heads, read in pages by the
    // engine's read service; the view only asks and draws.
    m_forkTree = new ForkTreeView(this);
    m_forkTree->setObjectName(QStringLiteral("forkTree"));
    connect(m_forkTree, &ForkTreeView::windowWanted, m_host, &EngineApi::requestForkTree);
    connect(m_host, &EngineApi::forkTreeAvailable, m_forkTree, &ForkTreeView::showTree);
    connect(m_forkTree, &ForkTreeView::blockWanted, m_host, &EngineApi::requestForkBlock);
    connect(m_host, &EngineApi::forkBlockAvailable, m_forkTree, &ForkTreeView::showBlock);
    m_drawer->addPage(m_forkTree, tr("Fork tree"));
}

void MainWindow::buildMenus()
{
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    fileMenu->addAction(tr("&Open database..."), QKeySequence::Open, this,
                        &MainWindow::chooseDatabase);
    fileMenu
        ->addAction(tr("Open &PostgreSQL database..."), this,
                    [this] {
                        if (const auto url = askPostgresDatabaseUrl(this, m_lastStatus.dbPath))
                            openDatabase(*url);
                    })
        ->setObjectName(QStringLiteral("openPostgresDatabase"));
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
    // Alt+1..7 open the drawer under the charts at a tab.
    for (int i = 0; i < m_drawer->pageCount() && i < 9; ++i) {
        QAction* go =
            viewMenu->addAction(tr("Go to %1").arg(m_drawer->pageTitle(i)), this, [this, i] {
                m_drawer->showPage(i);
                if (QWidget* page = m_drawer->page(i))
                    page->setFocus();
            });
        go->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)));
    }
    QAction* drawer = viewMenu->addAction(tr("Show the tabs under the charts"));
    drawer->setObjectName(QStringLiteral("toggleDrawer"));
    drawer->setCheckable(true);
    drawer->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_J));
    connect(drawer, &QAction::toggled, m_drawer, &BottomDrawer::setOpen);
    connect(m_drawer, &BottomDrawer::openChanged, drawer, &QAction::setChecked);
    viewMenu->addSeparator();
    viewMenu->addAction(tr("Follow live on all charts"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                        [this] { m_timeRange->setFollowLive(true); });
    menuBar()->addMenu(m_engineBar->menu());
    menuBar()->addMenu(m_labBar->menu());
    m_labBar->menu()
        ->addAction(
            tr("Watch another indexer..."), this,
            [this] { ForeignWatchPanel::askAndWatch(m_host, m_lastStatus.recentReorgs, this); })
        ->setObjectName(QStringLiteral("watchAnotherIndexer"));
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
    // The state, the heights and the environment are short and always whole; the node's
    // URL, an error and the database path give up width (with the whole text on hover), so
    // the window fits a laptop however long they are.
    for (QLabel** l : {&m_connectionLabel, &m_headLabel, &m_lagLabel, &m_envLabel, &m_chainLabel})
        *l = new QLabel(this);
    for (QLabel** l : {&m_nodeLabel, &m_errorLabel, &m_dbLabel})
        *l = new ElidedLabel(this);
    m_dbLabel->setObjectName(QStringLiteral("dbLabel"));
    for (QLabel* l : {m_connectionLabel, m_headLabel, m_lagLabel, m_envLabel, m_chainLabel})
        statusBar()->addWidget(l);
    statusBar()->addWidget(m_nodeLabel, 1);
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
    statusBar()->addPermanentWidget(m_errorLabel, 1);
    statusBar()->addPermanentWidget(m_dbLabel);
    m_connectionLabel->setObjectName(QStringLiteral("connectionLabel"));
    m_headLabel->setObjectName(QStringLiteral("headLabel"));
    m_chainLabel->setObjectName(QStringLiteral("chainLabel"));
    m_nodeLabel->setObjectName(QStringLiteral("nodeLabel"));
    m_envLabel->setObjectName(QStringLiteral("envLabel"));
    m_lagLabel->setObjectName(QStringLiteral("lagLabel"));
}

void MainWindow::applyStatus(const EngineStatus& s)
{
    if (s.checkpoint)
        m_forkTree->showCheckpoint(*s.checkpoint);
    m_forkTree->showSightings(s.sightingsStored);
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
    // Squeezed, the node's explanation goes first, never its URL.
    const QString url = m_nodeLabel->text().section(QStringLiteral(" ("), 0, 0);
    m_nodeLabel->setMinimumWidth(
        std::min(360, m_nodeLabel->fontMetrics().horizontalAdvance(url) + 4));
    m_chainLabel->setText(s.chainId ? tr("chain %1").arg(*s.chainId) : tr("chain unknown"));
    m_envLabel->setText(s.environmentId.isEmpty() ? tr("no environment")
                                                  : tr("env %1").arg(s.environmentId));
    // The head the lag is counted from, as the cursor lag chart draws it; the last one seen
    // while the node does not answer.
    const std::optional<quint64> nodeHead = CursorLagPanel::chartedHead(s);
    QString head = nodeHead      ? tr("head %1").arg(*nodeHead)
                   : s.headBlock ? tr("head %1 (stale)").arg(*s.headBlock)
                                 : tr("head unknown");
    // The file's name; where it is, on hover (the whole path would push the rest away).
    m_dbLabel->setText(s.dbPath.isEmpty() ? QString()
                       : s.dbPath.contains(QLatin1String("://"))
                           ? tr("db: %1").arg(s.dbPath)
                           : tr("db: %1").arg(QFileInfo(s.dbPath).fileName()));
    m_dbLabel->setToolTip(s.dbPath);
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
    m_headLabel->setText(head + QStringLiteral(" \u00b7 ") + m_checkpointText);
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
    // The newest message on the drawer's tab row, while the log is not on screen.
    m_drawer->setNote(m_drawer->indexOfPage(m_log),
                      QStringLiteral("%1 %2").arg(
                          QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), text),
                      Palette::logLevel(level));
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
