#include "MainWindow.h"
#include "EnvironmentWindow.h"
#include "EventLogView.h"
#include "Palette.h"
#include "ReorgDiffDialog.h"
#include "SettingsDialog.h"
#include "TableBrowser.h"
#include "completeness/DataIncompleteBanner.h"
#include "engine/EngineHost.h"
#include "engine/SyncProgress.h"
#include "indexer/CrashPoints.h"
#include "indexer/IndexerStatus.h"
#include "lab/FaultProxyDialog.h"
#include "lab/InjectReorgDialog.h"
#include "models/PagedTableModel.h"
#include "panels/PlotPanel.h"
#include "panels/StateStrip.h"
#include "report/ReportPdfWriter.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QToolBar>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "forkscope_version.h"

namespace forkscope::ui {

using engine::EngineStatus;

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_connectionLabel(new QLabel(this)), m_nodeLabel(new QLabel(this)),
      m_chainLabel(new QLabel(this)), m_envLabel(new QLabel(this)), m_headLabel(new QLabel(this)),
      m_lagLabel(new QLabel(this)), m_dbLabel(new QLabel(this)), m_log(new EventLogView(this)),
      m_nodeTable(new QTableWidget(0, NodeError + 1, this))
{
    setWindowTitle(QStringLiteral("Forkscope"));
    resize(1280, 860);
    buildPanels();

    for (QLabel* l :
         {m_connectionLabel, m_nodeLabel, m_chainLabel, m_envLabel, m_headLabel, m_lagLabel})
        statusBar()->addWidget(l);
    m_errorLabel = new QLabel(this);
    m_errorLabel->setObjectName(QStringLiteral("errorLabel"));
    m_errorLabel->setStyleSheet(
        QStringLiteral("color: %1").arg(Palette::screen(Palette::Tone::Bad).name()));
    m_errorLabel->hide();
    statusBar()->addPermanentWidget(m_errorLabel);
    statusBar()->addPermanentWidget(m_dbLabel);
    m_connectionLabel->setObjectName(QStringLiteral("connectionLabel"));
    m_envLabel->setObjectName(QStringLiteral("envLabel"));
    m_lagLabel->setObjectName(QStringLiteral("lagLabel"));

    buildDocks();
    buildActions();
    buildLab();
    applyStatus(EngineStatus{});
}

void MainWindow::buildPanels()
{
    auto* central = new QWidget(this);
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    m_banner = new DataIncompleteBanner(central);
    connect(m_banner, &DataIncompleteBanner::repairRequested, this, &MainWindow::repairRequested);
    column->addWidget(m_banner);
    auto* grid = new QGridLayout;
    column->addLayout(grid, 1);
    const QList<std::pair<QString, QString>> specs{
        {tr("Cursor lag"), tr("height (blocks)")},
        {tr("Reorg events"), tr("depth (blocks)")},
        {tr("Outbox backlog"), tr("rows, rows/s")},
        {tr("Node health"), tr("height (blocks)")},
    };
    for (qsizetype i = 0; i < specs.size(); ++i) {
        auto* panel = new PlotPanel(specs[i].first, specs[i].second, central);
        panel->setPlaceholderText(tr("Waiting for the indexer: no data yet."));
        grid->addWidget(panel, int(i / 2), int(i % 2));
        m_panels.append(panel);
    }
    // Cursor lag: the node's head and the checkpoint, and the gap between them.
    m_panels[0]->addSeries(tr("head"), Palette::series(Palette::Series::Head));
    m_panels[0]->addSeries(tr("checkpoint"), Palette::series(Palette::Series::Checkpoint));
    m_panels[0]->addSeries(tr("lag"), Palette::series(Palette::Series::Lag),
                           PlotPanel::Axis::Right);
    m_panels[0]->setRightAxisLabel(tr("lag (blocks)"));
    // Reorg events: one bar per rollback, its depth, coloured by what detected it.
    for (const QString& reason : Palette::liveReorgReasons())
        m_panels[1]->addBars(reason, Palette::reorgReason(reason));
    connect(m_panels[1], &PlotPanel::barClicked, this, [this](int bars, int index) {
        const qint64 id = reorgIdAt(bars, index);
        if (id >= 0)
            emit reorgDiffRequested(id);
    });
    // Outbox backlog: rows waiting for the safe height or the sink, and the delivery rate;
    // heights on the right axis show how far the safe height trails the head.
    m_panels[2]->addSeries(tr("pending rows"), Palette::series(Palette::Series::OutboxPending));
    m_panels[2]->addSeries(tr("delivered/s"), Palette::series(Palette::Series::DeliveredRate));
    m_panels[2]->addSeries(tr("safe height"), Palette::series(Palette::Series::SafeHeight),
                           PlotPanel::Axis::Right);
    m_panels[2]->addSeries(tr("head"), Palette::series(Palette::Series::Head),
                           PlotPanel::Axis::Right);
    m_panels[2]->setRightAxisLabel(tr("height (blocks)"));
    // Node health: heights per node (series added as nodes appear) and a state strip.
    m_stateStrip = new StateStrip;
    m_stateStrip->setObjectName(QStringLiteral("stateStrip"));
    m_panels[3]->addFooter(m_stateStrip);
    QStringList legend;
    for (auto s : Palette::nodeStates())
        legend << QStringLiteral("<span style=\"background:%1\">&nbsp;&nbsp;&nbsp;</span> %2")
                      .arg(Palette::nodeState(s).name(),
                           Palette::nodeStateMeaning(s).toHtmlEscaped());
    auto* legendLabel = new QLabel(legend.join(QStringLiteral("<br>")));
    legendLabel->setObjectName(QStringLiteral("nodeStateLegend"));
    legendLabel->setStyleSheet(QStringLiteral("font-size: 8pt"));
    m_panels[3]->addFooter(legendLabel);
    QCustomPlot* healthPlot = m_panels[3]->plot();
    connect(healthPlot, &QCustomPlot::afterReplot, m_stateStrip, [this, healthPlot] {
        const QRect r = healthPlot->axisRect()->rect();
        const QPoint origin = healthPlot->mapTo(m_panels[3], QPoint(0, 0));
        const QPoint strip = m_stateStrip->mapTo(m_panels[3], QPoint(0, 0));
        const int dx = origin.x() - strip.x();
        m_stateStrip->setTimeRange(healthPlot->xAxis->range().lower,
                                   healthPlot->xAxis->range().upper, r.left() + dx, r.right() + dx);
    });
    setCentralWidget(central);
}

void MainWindow::buildDocks()
{
    const auto dock = [this](const QString& title, const QString& name, QWidget* w) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(Qt::BottomDockWidgetArea, d);
        return d;
    };
    QDockWidget* logDock = dock(tr("Event log"), QStringLiteral("eventLogDock"), m_log);

    // Nodes: one row per watched endpoint, coloured by state, with a legend underneath.
    m_nodeTable->setObjectName(QStringLiteral("nodeTable"));
    m_nodeTable->setHorizontalHeaderLabels({tr("node"), tr("state"), tr("head"), tr("latency (ms)"),
                                            tr("getLogs halvings"), tr("suspected truncations"),
                                            tr("timeouts"), tr("inconsistent answers"),
                                            tr("last error")});
    m_nodeTable->horizontalHeader()->setStretchLastSection(true);
    m_nodeTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    QStringList meanings;
    for (auto s : Palette::nodeStates())
        meanings << Palette::nodeStateMeaning(s);
    m_nodeTable->setToolTip(
        meanings.join(QLatin1Char('\n')) +
        tr("\nHalvings, truncations and inconsistent answers are counted for the node the "
           "indexer reads; timeouts for every node (health polls, and the indexer's requests "
           "to its node)."));
    QDockWidget* nodesDock = dock(tr("Nodes"), QStringLiteral("nodesDock"), m_nodeTable);

    // Checkpoint: the claim the indexer stands behind, as stored.
    auto* cpWidget = new QWidget(this);
    auto* cpForm = new QFormLayout(cpWidget);
    for (const auto& [key, label] : QList<std::pair<QString, QString>>{
             {QStringLiteral("environment"), tr("Environment")},
             {QStringLiteral("chain"), tr("Chain id")},
             {QStringLiteral("source"), tr("Source")},
             {QStringLiteral("number"), tr("Checkpoint")},
             {QStringLiteral("hash"), tr("Hash")},
             {QStringLiteral("policy"), tr("Policy version")},
             {QStringLiteral("generation"), tr("Generation")},
             {QStringLiteral("verified"), tr("Hash re-verified at")}}) {
        auto* value = new QLabel(QStringLiteral("-"), cpWidget);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        cpForm->addRow(label, value);
        m_checkpointFields.insert(key, value);
    }
    QDockWidget* cpDock = dock(tr("Checkpoint"), QStringLiteral("checkpointDock"), cpWidget);

    m_transfers = new TableBrowser(engine::TableRequest::Kind::Transfers,
                                   tr("Filter by address or tx hash"), this);
    m_balances = new TableBrowser(engine::TableRequest::Kind::Balances,
                                  tr("Filter by token or holder"), this);
    m_backfill = new TableBrowser(engine::TableRequest::Kind::Backfill,
                                  tr("Filter by status or error"), this);
    for (TableBrowser* b : {m_transfers, m_balances, m_backfill})
        connect(b->model(), &PagedTableModel::pageRequested, this, &MainWindow::tablePageRequested);
    QDockWidget* transfersDock =
        dock(tr("Transfers"), QStringLiteral("transfersDock"), m_transfers);
    QDockWidget* balancesDock = dock(tr("Balances"), QStringLiteral("balancesDock"), m_balances);
    QDockWidget* backfillDock =
        dock(tr("Backfill ledger"), QStringLiteral("backfillDock"), m_backfill);

    // Environments: the live one and every archived one; double-click opens it read-only.
    m_envTable = new QTableWidget(0, 4, this);
    m_envTable->setObjectName(QStringLiteral("environmentTable"));
    m_envTable->setHorizontalHeaderLabels(
        {tr("environment"), tr("chain id"), tr("created"), tr("state")});
    m_envTable->horizontalHeader()->setStretchLastSection(true);
    m_envTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_envTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_envTable->setToolTip(
        tr("Double-click an environment to open it read-only in its own window"));
    connect(m_envTable, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        if (auto* item = m_envTable->item(row, 0))
            openEnvironment(item->text());
    });
    QDockWidget* envDock = dock(tr("Environments"), QStringLiteral("environmentsDock"), m_envTable);

    QDockWidget* previous = logDock;
    for (QDockWidget* d : {nodesDock, cpDock, transfersDock, balancesDock, backfillDock, envDock}) {
        tabifyDockWidget(previous, d);
        previous = d;
    }
    logDock->raise();
    resizeDocks({logDock}, {200}, Qt::Vertical); // the charts get most of the window

    auto* viewMenu = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* d :
         {logDock, nodesDock, cpDock, transfersDock, balancesDock, backfillDock, envDock})
        viewMenu->addAction(d->toggleViewAction());
    viewMenu->addSeparator();
    viewMenu->addAction(tr("Follow live on all charts"), QKeySequence(Qt::CTRL | Qt::Key_L), this,
                        [this] {
                            for (PlotPanel* p : m_panels)
                                p->setFollowLive(true);
                        });
}

void MainWindow::buildActions()
{
    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    menuBar()->insertMenu(menuBar()->actions().value(0), fileMenu);
    QAction* settings = fileMenu->addAction(tr("&Settings..."), this, [this] {
        QSettings store;
        SettingsDialog dialog(config::AppSettings::load(store), this);
        if (dialog.exec() != QDialog::Accepted)
            return;
        dialog.settings().save(store);
        appendLog(QStringLiteral("info"), tr("settings saved; restarting the engine"));
        emit settingsChanged(dialog.settings());
    });
    settings->setShortcut(QKeySequence::Preferences);
    QAction* exportAction = fileMenu->addAction(tr("&Export checkpoint report..."), this, [this] {
        const QString path = QFileDialog::getSaveFileName(
            this, tr("Export checkpoint report"), QStringLiteral("forkscope-report.pdf"),
            tr("PDF report (*.pdf);;JSON, machine-readable (*.json);;CSV, one row per checkpoint "
               "and reorg (*.csv)"));
        if (!path.isEmpty())
            exportReport(path);
    });
    exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    exportAction->setObjectName(QStringLiteral("exportReport"));
    QAction* quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    // Engine controls: toolbar, menu and keyboard.
    auto* engineMenu = menuBar()->addMenu(tr("&Engine"));
    auto* toolbar = addToolBar(tr("Engine"));
    toolbar->setObjectName(QStringLiteral("engineToolbar"));
    m_pauseAction = new QAction(tr("Pause indexing"), this);
    m_pauseAction->setCheckable(true);
    m_pauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    m_pauseAction->setToolTip(
        tr("Stop or resume indexing (Ctrl+I); the node, health and demo traffic go on"));
    connect(m_pauseAction, &QAction::toggled, this, &MainWindow::indexingPauseRequested);
    m_devnetAction = new QAction(tr("Devnet running"), this);
    m_devnetAction->setCheckable(true);
    m_devnetAction->setEnabled(false); // only for a managed anvil
    m_devnetAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_devnetAction->setToolTip(tr("Stop or start the managed anvil (Ctrl+D). Its chain is kept, so "
                                  "starting it again continues the same environment"));
    connect(m_devnetAction, &QAction::triggered, this, &MainWindow::devnetRunningRequested);
    auto* restart = new QAction(tr("Restart engine"), this);
    restart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    restart->setToolTip(
        tr("Stop and start again: a managed lab gets a fresh anvil and a new environment"));
    connect(restart, &QAction::triggered, this, [this] {
        m_pauseAction->setChecked(false);
        emit engineRestartRequested();
    });
    auto* stopEngine = new QAction(tr("Stop engine"), this);
    stopEngine->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    connect(stopEngine, &QAction::triggered, this, &MainWindow::engineStopRequested);
    for (QAction* a : {m_pauseAction, m_devnetAction, restart, stopEngine}) {
        engineMenu->addAction(a);
        toolbar->addAction(a);
    }
    engineMenu->addSeparator();
    m_verifyAction = engineMenu->addAction(tr("Verify stored data against the node"), this,
                                           &MainWindow::verifyStoredDataRequested);
    m_verifyAction->setObjectName(QStringLiteral("verifyStoredData"));
    m_verifyAction->setToolTip(
        tr("Re-check every indexed block against the node (its hash, its bloom, its logs, as "
           "`forkscope verify` does); a hole raises the data-incomplete banner"));

    auto* helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About Forkscope"), this, [this] {
        QMessageBox::about(this, tr("About Forkscope"),
                           tr("Forkscope %1\nA desktop monitor and local lab indexer for EVM "
                              "chains.")
                               .arg(QStringLiteral(FORKSCOPE_VERSION)));
    });
}

void MainWindow::buildLab()
{
    // Lab controls: each acts on the managed devnet, then the engine checks the
    // invariants once the indexer has caught up and the badge shows the verdict.
    auto* labMenu = menuBar()->addMenu(tr("&Lab"));
    menuBar()->insertMenu(menuBar()->actions().value(3), labMenu);
    auto* toolbar = addToolBar(tr("Lab"));
    toolbar->setObjectName(QStringLiteral("labToolbar"));
    const auto add = [&](const QString& name, const QString& text, const QKeySequence& key,
                         const QString& tip) {
        auto* a = new QAction(text, this);
        a->setShortcut(key);
        a->setToolTip(tip);
        a->setEnabled(false); // until the engine reports a managed lab
        m_labActions.insert(name, a);
        labMenu->addAction(a);
        return a;
    };
    QAction* demo =
        add(QStringLiteral("demo"), tr("Demo traffic"), QKeySequence(Qt::CTRL | Qt::Key_T),
            tr("Send demo transfers every second (rate in the toolbar)"));
    demo->setCheckable(true);
    m_demoRate = new QSpinBox(this);
    m_demoRate->setObjectName(QStringLiteral("demoRate"));
    m_demoRate->setRange(1, 200);
    m_demoRate->setValue(10);
    m_demoRate->setSuffix(tr(" transfers/s"));
    m_demoRate->setToolTip(tr("Demo traffic rate"));
    connect(demo, &QAction::triggered, this,
            [this](bool on) { emit demoTrafficRequested(on, m_demoRate->value()); });
    connect(m_demoRate, &QSpinBox::valueChanged, this, [this, demo](int v) {
        if (demo->isChecked())
            emit demoTrafficRequested(true, v);
    });
    QAction* reorg = add(QStringLiteral("reorg"), tr("Inject reorg..."),
                         QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                         tr("Replace the newest blocks with a new branch (anvil_reorg)"));
    connect(reorg, &QAction::triggered, this, [this] {
        InjectReorgDialog d(this);
        if (d.exec() == QDialog::Accepted)
            emit reorgInjectionRequested(d.depth(), d.txMode());
    });
    QAction* rollback =
        add(QStringLiteral("rollback"), tr("Roll back N blocks..."),
            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B),
            tr("Remove the newest blocks (anvil_rollback); new blocks replace them"));
    connect(rollback, &QAction::triggered, this, [this] {
        bool ok = false;
        const int n = QInputDialog::getInt(this, tr("Roll back"),
                                           tr("Blocks to remove from the head:"), 3, 1, 64, 1, &ok);
        if (ok)
            emit rollbackRequested(n);
    });
    QAction* proxy = add(QStringLiteral("proxy"), tr("Fault proxy..."),
                         QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F),
                         tr("Latency, errors, lag, outage and log caps per lab node"));
    connect(proxy, &QAction::triggered, this, [this] {
        FaultProxyDialog d(m_labNodes, m_proxyKnobs, this);
        if (d.exec() == QDialog::Accepted)
            emit proxyKnobsRequested(d.node(), d.changes());
    });
    QAction* receipts =
        add(QStringLiteral("receipts"), tr("Verify receipts"), QKeySequence(),
            tr("Prove every block with logs of ours against its receipts root (the header hash "
               "and the receipts trie recomputed): catches any log a node omits, adds or "
               "alters, at two calls per block"));
    receipts->setCheckable(true);
    connect(receipts, &QAction::triggered, this,
            [this](bool on) { emit verifyReceiptsRequested(on); });
    QAction* crash =
        add(QStringLiteral("crash"), tr("Crash the indexer..."),
            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K),
            tr("Kill the indexer at a crash point and watch it recover from the database"));
    connect(crash, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString point = QInputDialog::getItem(this, tr("Crash the indexer"),
                                                    tr("Crash point (the indexer dies there as if "
                                                       "killed, then restarts from the database):"),
                                                    indexer::crashPointNames(), 0, false, &ok);
        if (ok)
            emit crashRequested(point);
    });
    QAction* check =
        add(QStringLiteral("check"), tr("Check invariants now"),
            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V),
            tr("Check the four invariants against the node once the indexer has caught up"));
    connect(check, &QAction::triggered, this,
            [this] { emit invariantCheckRequested(tr("a check on request")); });
    labMenu->addSeparator();
    QAction* reset =
        add(QStringLiteral("reset"), tr("Reset lab environment..."),
            QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
            tr("Archive this environment (kept, read-only) and start a fresh chain in a new one"));
    connect(reset, &QAction::triggered, this, [this] {
        QMessageBox box(QMessageBox::Question, tr("Reset lab environment"),
                        tr("Reset the lab environment %1?").arg(m_environment), QMessageBox::Cancel,
                        this);
        box.setInformativeText(
            tr("This will:\n"
               "1. stop indexing;\n"
               "2. reset the managed anvil (anvil_reset): its chain starts again from genesis;\n"
               "3. archive environment %1: its rows and checkpoint are kept, never deleted and "
               "never "
               "mixed with the new ones, and it becomes read-only (View > Environments opens it);\n"
               "4. open a new environment, deploy a new demo token and index the fresh chain;\n"
               "5. check the invariants once the new environment has caught up.\n\n"
               "Nothing in the database is deleted.")
                .arg(m_environment));
        QPushButton* go = box.addButton(tr("Reset"), QMessageBox::AcceptRole);
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() == go)
            emit labResetRequested();
    });
    for (QAction* a : {demo, reorg, rollback, proxy, crash, check, reset})
        toolbar->addAction(a);
    toolbar->insertWidget(reorg, m_demoRate);
    m_verdictBadge = new QLabel(this);
    m_verdictBadge->setObjectName(QStringLiteral("verdictBadge"));
    m_verdictBadge->setMargin(3);
    toolbar->addSeparator();
    toolbar->addWidget(m_verdictBadge);
}

QString MainWindow::verdictText() const
{
    return m_verdictBadge->text();
}

void MainWindow::applyLab(const EngineStatus& s)
{
    const bool lab = s.managedDevnet && s.devnetRunning && s.labReady &&
                     s.connection != EngineStatus::Connection::Stopped;
    for (auto it = m_labActions.cbegin(); it != m_labActions.cend(); ++it)
        it.value()->setEnabled(it.key() == QLatin1String("check")   ? !s.environmentId.isEmpty()
                               : it.key() == QLatin1String("proxy") ? lab && !s.labNodes.isEmpty()
                                                                    : lab);
    {
        const QSignalBlocker block(m_labActions.value(QStringLiteral("demo")));
        m_labActions.value(QStringLiteral("demo"))->setChecked(s.demoTraffic);
    }
    {
        const QSignalBlocker block(m_labActions.value(QStringLiteral("receipts")));
        m_labActions.value(QStringLiteral("receipts"))->setChecked(s.verifyReceipts);
    }
    // Follow the engine's rate only when the engine changed it: a snapshot still carrying
    // the old rate must not overwrite what the user just typed.
    if (s.demoTransfersPerTick > 0 && s.demoTransfersPerTick != m_engineDemoRate) {
        m_engineDemoRate = s.demoTransfersPerTick;
        const QSignalBlocker block(m_demoRate);
        m_demoRate->setValue(s.demoTransfersPerTick);
    }
    if (!s.environments.isEmpty() && s.environments != m_environments) {
        m_environments = s.environments;
        m_envTable->setRowCount(int(s.environments.size()));
        for (int i = 0; i < s.environments.size(); ++i) {
            const auto& e = s.environments[i];
            const QStringList cells{e.id, QString::number(e.chainId), e.createdAt,
                                    e.archivedAt.isEmpty() ? tr("live")
                                                           : tr("archived %1").arg(e.archivedAt)};
            for (int c = 0; c < cells.size(); ++c) {
                auto* item = m_envTable->item(i, c);
                if (!item)
                    m_envTable->setItem(i, c, item = new QTableWidgetItem);
                item->setText(cells[c]);
            }
        }
    }
    m_labNodes = s.labNodes;
    m_proxyKnobs = s.proxyKnobs;
    m_verdict = s.verdict;
    using V = engine::InvariantVerdict::State;
    QString text;
    switch (s.verdict.state) {
    case V::None:
        text = tr("invariants: not checked yet");
        break;
    case V::Checking:
        text = tr("invariants: checking...");
        break;
    case V::Holds:
        text = tr("invariants hold");
        break;
    case V::Violated:
        text = tr("invariants VIOLATED");
        break;
    case V::Unavailable:
        text = tr("invariants: could not check");
        break;
    }
    if (!s.crashArmed.isEmpty())
        text += tr(" | crash armed at %1").arg(s.crashArmed);
    m_verdictBadge->setText(text);
    m_verdictBadge->setStyleSheet(
        QStringLiteral("QLabel { color: white; background: %1; border-radius: 3px; }")
            .arg(Palette::verdict(s.verdict.state).name()));
    m_verdictBadge->setToolTip(
        s.verdict.action.isEmpty()
            ? QString()
            : tr("after %1 (%2):\n%3")
                  .arg(s.verdict.action,
                       s.verdict.at.toLocalTime().toString(QStringLiteral("HH:mm:ss")),
                       s.verdict.summary));
}

void MainWindow::attachEngine(engine::EngineHost* host)
{
    using engine::EngineHost;
    connect(host, &EngineHost::statusAvailable, this, &MainWindow::applyStatus,
            Qt::QueuedConnection);
    connect(host, &EngineHost::logMessage, this, &MainWindow::appendLog, Qt::QueuedConnection);
    connect(host, &EngineHost::reorgDiffAvailable, this, &MainWindow::showReorgDiff,
            Qt::QueuedConnection);
    connect(host, &EngineHost::tablePageAvailable, this, &MainWindow::applyTablePage,
            Qt::QueuedConnection);
    connect(this, &MainWindow::indexingPauseRequested, host, &EngineHost::setIndexingPaused);
    connect(this, &MainWindow::devnetRunningRequested, host, &EngineHost::setDevnetRunning);
    connect(this, &MainWindow::reorgDiffRequested, host, &EngineHost::requestReorgDiff);
    connect(this, &MainWindow::tablePageRequested, host, &EngineHost::requestTablePage);
    connect(this, &MainWindow::demoTrafficRequested, host, &EngineHost::setDemoTraffic);
    connect(this, &MainWindow::reorgInjectionRequested, host, &EngineHost::injectReorg);
    connect(this, &MainWindow::rollbackRequested, host, &EngineHost::rollbackBlocks);
    connect(this, &MainWindow::proxyKnobsRequested, host, &EngineHost::setProxyKnobs);
    connect(this, &MainWindow::crashRequested, host, &EngineHost::crashIndexer);
    connect(this, &MainWindow::invariantCheckRequested, host, &EngineHost::checkInvariants);
    connect(this, &MainWindow::labResetRequested, host, &EngineHost::resetLab);
    connect(this, &MainWindow::repairRequested, host, &EngineHost::repair);
    connect(this, &MainWindow::verifyReceiptsRequested, host, &EngineHost::setVerifyReceipts);
    connect(this, &MainWindow::verifyStoredDataRequested, host, &EngineHost::verifyStoredData);
    m_host = host;
    connect(host, &EngineHost::reportAvailable, this, &MainWindow::applyReport,
            Qt::QueuedConnection);
    connect(host, &EngineHost::reportFailed, this, &MainWindow::reportFailed, Qt::QueuedConnection);
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

QString MainWindow::lastErrorText() const
{
    return m_errorLabel->toolTip();
}

QString MainWindow::lagText() const
{
    return m_lagLabel->text();
}

void MainWindow::applyStatus(const EngineStatus& s)
{
    m_connectionLabel->setText(EngineStatus::connectionName(s.connection));
    m_connectionLabel->setToolTip(s.message);
    const QString kind = s.managedDevnet ? tr("managed anvil") : tr("node");
    m_nodeLabel->setText(s.endpoint.isEmpty() ? tr("%1: starting...").arg(kind)
                                              : tr("%1: %2").arg(kind, s.endpoint));
    m_chainLabel->setText(s.chainId ? tr("chain id %1").arg(*s.chainId) : tr("chain id unknown"));
    m_envLabel->setText(s.environmentId.isEmpty() ? tr("no environment")
                                                  : tr("env %1").arg(s.environmentId));
    QString head = s.headBlock ? tr("head %1").arg(*s.headBlock) : tr("head unknown");
    if (s.connection == EngineStatus::Connection::Unreachable && s.headBlock)
        head += tr(" (stale)");
    m_headLabel->setText(head);
    m_dbLabel->setText(s.dbPath.isEmpty() ? QString() : tr("db: %1").arg(s.dbPath));
    {
        const QSignalBlocker block(m_devnetAction);
        m_devnetAction->setEnabled(s.managedDevnet &&
                                   s.connection != EngineStatus::Connection::Stopped);
        m_devnetAction->setChecked(s.devnetRunning);
    }
    if (m_enginePaused != s.indexingPaused) {
        m_enginePaused = s.indexingPaused;
        const QSignalBlocker block(m_pauseAction);
        m_pauseAction->setChecked(s.indexingPaused);
    }
    applyLab(s);
    // Never green over a gap: the banner, and the status bar's state, while any range is
    // not proven complete.
    m_banner->setAlerts(s.openAlerts, s.health.nodes);
    if (!s.openAlerts.isEmpty()) {
        m_connectionLabel->setText(tr("data incomplete"));
        m_connectionLabel->setStyleSheet(
            QStringLiteral("color: white; background: %1").arg(Palette::dataIncomplete().name()));
        m_connectionLabel->setToolTip(s.openAlerts.first().summary());
    } else {
        m_connectionLabel->setStyleSheet(QString());
    }
    const double t = double((s.updatedAt.isValid() ? s.updatedAt : QDateTime::currentDateTimeUtc())
                                .toMSecsSinceEpoch()) /
                     1000.0;
    if (!s.health.nodes.isEmpty())
        applyHealth(s, t);
    if (s.environmentId.isEmpty()) {
        m_lagLabel->setText(tr("lag unknown"));
        return;
    }
    if (s.environmentId != m_environment) {
        // A new environment (restart, reset): the tables show the new one from page one.
        m_environment = s.environmentId;
        for (TableBrowser* b : {m_transfers, m_balances, m_backfill})
            b->model()->refresh();
    }
    applyLag(s, t);
    applyReorgs(s);
    m_panels[1]->advanceTo(t);
    applyOutbox(s, t);
    applyCheckpoint(s);
}

void MainWindow::applyLag(const EngineStatus& s, double t)
{
    PlotPanel* lag = m_panels[0];
    if (s.headBlock)
        lag->appendPoint(0, t, double(*s.headBlock));
    if (s.checkpoint)
        lag->appendPoint(1, t, double(*s.checkpoint));
    const std::optional<std::uint64_t> lagBlocks = indexer::IndexerStatus::cursorLag(
        s.headBlock, s.checkpoint, s.connection != EngineStatus::Connection::Unreachable);
    if (lagBlocks)
        lag->appendPoint(2, t, double(*lagBlocks));
    QString eta;
    if (lagBlocks && *lagBlocks > 0) {
        const auto secs = engine::etaSeconds(*lagBlocks, s.blocksPerSecond);
        eta = secs ? tr(" | ETA %1").arg(engine::humanDuration(*secs)) : tr(" | ETA unknown");
    }
    // Freshness is not lag: a synced indexer on a stalled chain has lag 0 and old data.
    const QString fresh =
        s.lastCommitAt.isValid()
            ? engine::humanDuration(
                  double(s.lastCommitAt.msecsTo(QDateTime::currentDateTimeUtc())) / 1000.0)
            : tr("never");
    const QString lagStr = lagBlocks ? QString::number(*lagBlocks) : tr("unknown");
    lag->setSummary(tr("%1 | lag %2 blocks%3 | %4 events/s | last commit %5 ago")
                        .arg(s.indexerState, lagStr, eta)
                        .arg(s.eventsPerSecond, 0, 'f', 0)
                        .arg(fresh));
    m_lagLabel->setText(tr("lag %1").arg(lagStr));
    m_checkpointText =
        s.checkpoint ? tr("checkpoint %1").arg(*s.checkpoint) : tr("nothing indexed yet");
    m_headLabel->setText(m_headLabel->text() + QStringLiteral(" | ") + m_checkpointText);
}

void MainWindow::applyReorgs(const EngineStatus& s)
{
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
        m_panels[1]->setBars(r, times, depths);
        m_panels[1]->setBarLabels(r, labels);
    }
    m_panels[1]->setSummary(tr("%1 reorg(s)").arg(s.recentReorgs.size()));
    if (s.recentReorgs.isEmpty())
        m_panels[1]->setPlaceholderText(tr("No reorg in this environment yet."));
}

void MainWindow::applyOutbox(const EngineStatus& s, double t)
{
    PlotPanel* p = m_panels[2];
    p->appendPoint(0, t, double(s.outboxPending));
    p->appendPoint(1, t, s.outboxDeliveredPerSecond);
    if (s.safeHeight)
        p->appendPoint(2, t, double(*s.safeHeight));
    if (s.headBlock)
        p->appendPoint(3, t, double(*s.headBlock));
    const QString age = s.outboxOldestPendingAgeSecs
                            ? engine::humanDuration(*s.outboxOldestPendingAgeSecs)
                            : tr("-");
    const QString safe = s.safeHeight ? QString::number(*s.safeHeight) : tr("none (no ready node)");
    QString text = tr("%1 pending (oldest %2) | %3 delivered, %4/s | safe %5 = head - %6")
                       .arg(s.outboxPending)
                       .arg(age)
                       .arg(s.outboxDelivered)
                       .arg(s.outboxDeliveredPerSecond, 0, 'f', 1)
                       .arg(safe)
                       .arg(s.confirmations);
    if (s.outboxFailed > 0)
        text += tr(" | %1 failed").arg(s.outboxFailed);
    if (s.outboxSink.isEmpty())
        text += tr(" | no sink: rows are kept, not delivered");
    p->setSummary(text);
}

void MainWindow::applyCheckpoint(const EngineStatus& s)
{
    m_checkpointFields.value(QStringLiteral("environment"))->setText(s.environmentId);
    m_checkpointFields.value(QStringLiteral("chain"))
        ->setText(s.chainId ? QString::number(*s.chainId) : tr("unknown"));
    m_checkpointFields.value(QStringLiteral("source"))->setText(QStringLiteral("default"));
    m_checkpointFields.value(QStringLiteral("number"))
        ->setText(s.checkpoint ? QString::number(*s.checkpoint) : tr("nothing indexed yet"));
    m_checkpointFields.value(QStringLiteral("hash"))
        ->setText(s.checkpointHash.isEmpty() ? QStringLiteral("-") : s.checkpointHash);
    m_checkpointFields.value(QStringLiteral("policy"))->setText(s.policyVersion);
    m_checkpointFields.value(QStringLiteral("generation"))->setText(QString::number(s.generation));
    m_checkpointFields.value(QStringLiteral("verified"))
        ->setText(s.verifiedAt.isEmpty() ? tr("not yet") : s.verifiedAt);
}

void MainWindow::applyHealth(const EngineStatus& s, double timeSecs)
{
    const health::HealthSnapshot& h = s.health;
    m_nodeTable->setRowCount(int(h.nodes.size()));
    QStringList states;
    for (int i = 0; i < h.nodes.size(); ++i) {
        const health::NodeHealth& n = h.nodes[i];
        // The wire's counters belong to the node the indexer reads from.
        const bool indexed = n.url == s.endpoint;
        const QStringList cells{
            n.url,
            n.state == health::NodeState::DroppingLogs && n.lastDropBlock
                ? tr("dropping logs (%n time(s), last at block %1)", nullptr, int(n.droppedLogs))
                      .arg(*n.lastDropBlock)
                : health::nodeStateName(n.state),
            n.head ? QString::number(*n.head) : tr("unknown"),
            n.latencyMs >= 0 ? QString::number(n.latencyMs) : QStringLiteral("-"),
            indexed ? QString::number(s.truncationHalvings) : QStringLiteral("-"),
            indexed ? QString::number(s.suspectedTruncations) : QStringLiteral("-"),
            QString::number(n.timeouts + (indexed ? s.indexerTimeouts : 0)),
            indexed ? QString::number(s.inconsistencies) : QStringLiteral("-"),
            n.lastError};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = m_nodeTable->item(i, c);
            if (!item) {
                item = new QTableWidgetItem;
                m_nodeTable->setItem(i, c, item);
            }
            item->setText(cells[c]);
            if (c == NodeStateCol) {
                item->setBackground(Palette::nodeState(n.state));
                item->setToolTip(Palette::nodeStateMeaning(n.state));
            }
        }
        if (!m_nodeSeries.contains(n.url))
            m_nodeSeries.insert(n.url, m_panels[3]->addSeries(n.url, Palette::nodeSeries(i)));
        if (n.head && n.state != health::NodeState::Offline)
            m_panels[3]->appendPoint(m_nodeSeries.value(n.url), timeSecs, double(*n.head));
        m_stateStrip->addSample(
            n.url,
            double(h.at.isValid() ? h.at.toMSecsSinceEpoch() : qint64(timeSecs * 1000)) / 1000.0,
            n.state);
        states << health::nodeStateName(n.state);
    }
    m_panels[3]->setPlaceholderText({});
    m_panels[3]->setSummary(tr("%1 node(s): %2 | ready height %3")
                                .arg(h.nodes.size())
                                .arg(states.join(QStringLiteral(", ")),
                                     h.readyHeight ? QString::number(*h.readyHeight) : tr("none")));
}

void MainWindow::applyTablePage(const engine::TablePage& page)
{
    // Each model takes only the pages it asked for.
    for (TableBrowser* b : allBrowsers())
        b->model()->applyPage(page);
}

QList<TableBrowser*> MainWindow::allBrowsers() const
{
    QList<TableBrowser*> out{m_transfers, m_balances, m_backfill};
    for (const auto& w : m_envWindows)
        if (w)
            out << w->transfers() << w->balances();
    return out;
}

QList<EnvironmentWindow*> MainWindow::environmentWindows() const
{
    QList<EnvironmentWindow*> out;
    for (const auto& w : m_envWindows)
        if (w)
            out << w;
    return out;
}

void MainWindow::openEnvironment(const QString& environmentId)
{
    bool archived = false;
    for (const auto& e : m_environments)
        if (e.id == environmentId)
            archived = !e.archivedAt.isEmpty();
    auto* w = new EnvironmentWindow(environmentId, archived, this);
    m_envWindows.append(w);
    for (TableBrowser* b : {w->transfers(), w->balances()})
        connect(b->model(), &PagedTableModel::pageRequested, this, &MainWindow::tablePageRequested);
    w->show();
    if (m_host)
        m_reportJobs.insert(m_host->requestReport(environmentId, true), {{}, environmentId});
}

void MainWindow::exportReport(const QString& path)
{
    const QString format = QFileInfo(path).suffix().toLower();
    if (!QStringList{QStringLiteral("json"), QStringLiteral("csv"), QStringLiteral("pdf")}.contains(
            format)) {
        const QString msg = tr("export: %1 does not end in .json, .csv or .pdf").arg(path);
        appendLog(QStringLiteral("error"), msg);
        emit exportFinished(path, false, msg);
        return;
    }
    appendLog(QStringLiteral("info"),
              tr("export: building the report, re-verifying checkpoints against the node..."));
    if (m_host)
        m_reportJobs.insert(m_host->requestReport(QString(), true), {path, {}});
}

void MainWindow::applyReport(quint64 ticket, const report::CheckpointReport& r)
{
    const ReportJob job = m_reportJobs.take(ticket);
    if (!job.environmentId.isEmpty()) {
        for (EnvironmentWindow* w : environmentWindows())
            if (w->environmentId() == job.environmentId)
                w->applyReport(r);
        return;
    }
    if (job.exportPath.isEmpty())
        return; // not ours, or no longer awaited
    const QString path = job.exportPath;
    const QString format = QFileInfo(path).suffix().toLower();
    try {
        if (format == QLatin1String("pdf")) {
            // The live panels as they are on screen, not redrawn from the database.
            QList<QImage> charts;
            for (PlotPanel* p : m_panels)
                charts << p->plot()->toPixmap(1200, 500, 1.0).toImage();
            ReportPdfWriter::write(r, path, charts);
        } else {
            QSaveFile f(path);
            const QByteArray bytes = format == QLatin1String("json") ? r.toJson() : r.toCsv();
            if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
                throw std::runtime_error(
                    tr("cannot write %1: %2").arg(path, f.errorString()).toStdString());
        }
    } catch (const std::exception& e) {
        const QString msg = tr("export failed: %1").arg(QString::fromUtf8(e.what()));
        appendLog(QStringLiteral("error"), msg);
        emit exportFinished(path, false, msg);
        return;
    }
    QStringList statuses;
    for (const auto& c : r.checkpoints)
        statuses << tr("checkpoint %1 %2")
                        .arg(c.blockNumber)
                        .arg(report::statusName(c.verification.status));
    const QString msg = tr("exported %1 (%2; %3 reorgs)")
                            .arg(path, statuses.isEmpty() ? tr("nothing indexed")
                                                          : statuses.join(QStringLiteral(", ")))
                            .arg(r.counts.reorgs);
    appendLog(QStringLiteral("info"), msg);
    emit exportFinished(path, true, msg);
}

void MainWindow::reportFailed(quint64 ticket, const QString& error)
{
    const ReportJob job = m_reportJobs.take(ticket);
    const QString msg = tr("report failed: %1").arg(error);
    appendLog(QStringLiteral("error"), msg);
    if (!job.exportPath.isEmpty())
        emit exportFinished(job.exportPath, false, msg);
    if (!job.environmentId.isEmpty())
        for (EnvironmentWindow* w : environmentWindows())
            if (w->environmentId() == job.environmentId)
                w->setWindowTitle(w->windowTitle() + tr(" - ") + msg);
}

ReorgDiffDialog* MainWindow::lastDiffDialog() const
{
    return m_diffDialog;
}

void MainWindow::showReorgDiff(const engine::ReorgDiff& diff)
{
    if (m_diffDialog)
        m_diffDialog->close();
    m_diffDialog = new ReorgDiffDialog(diff, this);
    m_diffDialog->setAttribute(Qt::WA_DeleteOnClose);
    m_diffDialog->show();
}

QString MainWindow::checkpointField(const QString& name) const
{
    const QLabel* l = m_checkpointFields.value(name);
    return l ? l->text() : QString();
}

void MainWindow::appendLog(const QString& level, const QString& text)
{
    m_log->append(level, text);
    if (level == QLatin1String("error")) {
        // Every error is visible where the user looks, not only in the log dock (or stderr).
        m_errorLabel->setText(
            QStringLiteral("\u26a0 ") +
            QFontMetrics(m_errorLabel->font()).elidedText(text, Qt::ElideRight, 420));
        m_errorLabel->setToolTip(text);
        m_errorLabel->show();
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    emit closing();
    event->accept();
}

} // namespace forkscope::ui
