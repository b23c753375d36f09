#include "MainWindow.h"
#include "ReorgDiffDialog.h"
#include "SettingsDialog.h"
#include "panels/PlotPanel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDockWidget>
#include <QGridLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QFormLayout>
#include <QHeaderView>
#include <QToolBar>
#include <qcustomplot.h>
#include <QSettings>
#include <QStatusBar>
#include <QTableWidget>

#include "forkscope_version.h"

namespace forkscope::ui {

using engine::EngineStatus;

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_connectionLabel(new QLabel(this)), m_nodeLabel(new QLabel(this)),
      m_chainLabel(new QLabel(this)), m_headLabel(new QLabel(this)), m_dbLabel(new QLabel(this)),
      m_log(new QPlainTextEdit(this)), m_nodeTable(new QTableWidget(0, 5, this))
{
    setWindowTitle(QStringLiteral("Forkscope"));
    resize(1200, 800);

    auto* central = new QWidget(this);
    auto* grid = new QGridLayout(central);
    const QList<std::pair<QString, QString>> specs{
        {tr("Cursor lag"), tr("blocks")},
        {tr("Reorg events"), tr("depth (blocks)")},
        {tr("Outbox backlog"), tr("rows")},
        {tr("Node health"), tr("height")},
    };
    for (qsizetype i = 0; i < specs.size(); ++i) {
        auto* panel = new PlotPanel(specs[i].first, specs[i].second, central);
        panel->setPlaceholderText(tr("Waiting for the indexer: no data yet."));
        grid->addWidget(panel, int(i / 2), int(i % 2));
        m_panels.append(panel);
    }
    // Cursor lag: the node's head and the checkpoint, in blocks, over time.
    m_panels[0]->addSeries(tr("head"), QColor(0x1f, 0x77, 0xb4));
    m_panels[0]->addSeries(tr("checkpoint"), QColor(0x2c, 0xa0, 0x2c));
    // Reorg events: one bar per rollback, its depth, coloured by what detected it.
    m_panels[1]->addBars(tr("hash mismatch"), QColor(0xff, 0x7f, 0x0e));
    m_panels[1]->addBars(tr("parent mismatch"), QColor(0x94, 0x67, 0xbd));
    m_panels[1]->addBars(tr("absence"), QColor(0xd6, 0x27, 0x28));
    m_panels[1]->plot()->setToolTip(tr("Click a bar to see what that reorg undid"));
    connect(m_panels[1], &PlotPanel::barClicked, this, [this](int bars, int index) {
        const qint64 id = reorgIdAt(bars, index);
        if (id >= 0)
            emit reorgDiffRequested(id);
    });
    // Outbox backlog: rows waiting for the safe height or the sink.
    m_panels[2]->addSeries(tr("pending rows"), QColor(0x8c, 0x56, 0x4b));
    setCentralWidget(central);

    m_connectionLabel->setObjectName(QStringLiteral("connectionLabel"));
    m_nodeLabel->setObjectName(QStringLiteral("nodeLabel"));
    m_chainLabel->setObjectName(QStringLiteral("chainLabel"));
    m_headLabel->setObjectName(QStringLiteral("headLabel"));
    m_dbLabel->setObjectName(QStringLiteral("dbLabel"));
    statusBar()->addWidget(m_connectionLabel);
    statusBar()->addWidget(m_nodeLabel);
    statusBar()->addWidget(m_chainLabel);
    statusBar()->addWidget(m_headLabel);
    statusBar()->addPermanentWidget(m_dbLabel);

    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(2000); // the log is a view, not an archive: bounded
    auto* dock = new QDockWidget(tr("Event log"), this);
    dock->setObjectName(QStringLiteral("eventLogDock"));
    dock->setWidget(m_log);
    addDockWidget(Qt::BottomDockWidgetArea, dock);

    // Nodes: one row per watched endpoint, coloured by state.
    m_nodeTable->setObjectName(QStringLiteral("nodeTable"));
    m_nodeTable->setHorizontalHeaderLabels({tr("node"), tr("state"), tr("head"), tr("latency (ms)"), tr("last error")});
    m_nodeTable->horizontalHeader()->setStretchLastSection(true);
    m_nodeTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_nodeTable->setToolTip(tr("caught up: within the lag threshold of the best head\n"
                               "lagging: further behind\noffline: no answer or an error\n"
                               "forked: its head block differs from the indexed block at that height"));
    auto* nodesDock = new QDockWidget(tr("Nodes"), this);
    nodesDock->setObjectName(QStringLiteral("nodesDock"));
    nodesDock->setWidget(m_nodeTable);
    addDockWidget(Qt::BottomDockWidgetArea, nodesDock);
    tabifyDockWidget(dock, nodesDock);
    dock->raise();

    // Checkpoint: the claim the indexer stands behind, as stored.
    auto* cpWidget = new QWidget(this);
    auto* cpForm = new QFormLayout(cpWidget);
    for (const auto& [key, label] : QList<std::pair<QString, QString>>{
             {QStringLiteral("environment"), tr("Environment")}, {QStringLiteral("chain"), tr("Chain id")},
             {QStringLiteral("source"), tr("Source")}, {QStringLiteral("number"), tr("Checkpoint")},
             {QStringLiteral("hash"), tr("Hash")}, {QStringLiteral("policy"), tr("Policy version")},
             {QStringLiteral("generation"), tr("Generation")}, {QStringLiteral("verified"), tr("Hash re-verified at")}}) {
        auto* value = new QLabel(QStringLiteral("-"), cpWidget);
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        cpForm->addRow(label, value);
        m_checkpointFields.insert(key, value);
    }
    auto* cpDock = new QDockWidget(tr("Checkpoint"), this);
    cpDock->setObjectName(QStringLiteral("checkpointDock"));
    cpDock->setWidget(cpWidget);
    addDockWidget(Qt::BottomDockWidgetArea, cpDock);
    tabifyDockWidget(nodesDock, cpDock);
    dock->raise();

    // Engine controls: toolbar, menu and keyboard.
    auto* engineMenu = menuBar()->addMenu(tr("&Engine"));
    auto* toolbar = addToolBar(tr("Engine"));
    toolbar->setObjectName(QStringLiteral("engineToolbar"));
    m_pauseAction = new QAction(tr("Pause indexing"), this);
    m_pauseAction->setCheckable(true);
    m_pauseAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    connect(m_pauseAction, &QAction::toggled, this, &MainWindow::indexingPauseRequested);
    auto* restart = new QAction(tr("Restart engine"), this);
    restart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    restart->setToolTip(tr("Stop and start again: a managed lab gets a fresh anvil and a new environment"));
    connect(restart, &QAction::triggered, this, [this] {
        m_pauseAction->setChecked(false);
        emit engineRestartRequested();
    });
    auto* stopEngine = new QAction(tr("Stop engine"), this);
    stopEngine->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    connect(stopEngine, &QAction::triggered, this, &MainWindow::engineStopRequested);
    for (QAction* a : {m_pauseAction, restart, stopEngine}) {
        engineMenu->addAction(a);
        toolbar->addAction(a);
    }

    auto* fileMenu = menuBar()->addMenu(tr("&File"));
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
    QAction* quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    auto* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->addAction(dock->toggleViewAction());
    viewMenu->addAction(nodesDock->toggleViewAction());
    viewMenu->addAction(cpDock->toggleViewAction());
    auto* helpMenu = menuBar()->addMenu(tr("&Help"));
    helpMenu->addAction(tr("&About Forkscope"), this, [this] {
        QMessageBox::about(this, tr("About Forkscope"),
                           tr("Forkscope %1\nA desktop monitor and local lab indexer for EVM "
                              "chains.")
                               .arg(QStringLiteral(FORKSCOPE_VERSION)));
    });

    applyStatus(EngineStatus{});
}

QString MainWindow::nodeText() const
{
    return m_nodeLabel->text();
}

QString MainWindow::chainText() const
{
    return m_chainLabel->text();
}

void MainWindow::applyStatus(const EngineStatus& s)
{
    m_connectionLabel->setText(EngineStatus::connectionName(s.connection));
    const QString kind = s.managedDevnet ? tr("managed anvil") : tr("node");
    m_nodeLabel->setText(s.endpoint.isEmpty() ? tr("%1: starting...").arg(kind)
                                              : tr("%1: %2").arg(kind, s.endpoint));
    m_chainLabel->setText(s.chainId ? tr("chain id %1").arg(*s.chainId) : tr("chain id unknown"));
    QString head = s.headBlock ? tr("head %1").arg(*s.headBlock) : tr("head unknown");
    if (s.connection == EngineStatus::Connection::Unreachable && s.headBlock)
        head += tr(" (stale)");
    m_headLabel->setText(head);
    m_dbLabel->setText(s.dbPath.isEmpty() ? QString() : tr("db: %1").arg(s.dbPath));
    if (!s.health.nodes.isEmpty())
        applyHealth(s.health, double(s.updatedAt.toMSecsSinceEpoch()) / 1000.0);
    if (!s.environmentId.isEmpty()) {
        const double t = double(s.updatedAt.toMSecsSinceEpoch()) / 1000.0;
        PlotPanel* lag = m_panels[0];
        if (s.headBlock)
            lag->appendPoint(0, t, double(*s.headBlock));
        if (s.checkpoint)
            lag->appendPoint(1, t, double(*s.checkpoint));
        const QString lagText = (s.headBlock && s.checkpoint)
                                    ? QString::number(qint64(*s.headBlock) - qint64(*s.checkpoint))
                                    : tr("unknown");
        lag->setSummary(tr("env %1 | %2 | lag %3 blocks | %4 events/s")
                            .arg(s.environmentId, s.indexerState, lagText)
                            .arg(s.eventsPerSecond, 0, 'f', 0));
        const QStringList reasons{QStringLiteral("hash mismatch"), QStringLiteral("parent mismatch"),
                                  QStringLiteral("absence")};
        for (int r = 0; r < reasons.size(); ++r) {
            QList<double> times, depths;
            m_reorgIds[r].clear();
            for (const auto& m : s.recentReorgs)
                if (m.reason == reasons[r]) {
                    times << double(m.detectedAt.toMSecsSinceEpoch()) / 1000.0;
                    depths << double(m.depth);
                    m_reorgIds[r] << m.id;
                }
            m_panels[1]->setBars(r, times, depths);
        }
        m_panels[1]->setSummary(tr("%1 reorg(s)").arg(s.recentReorgs.size()));
        m_panels[2]->appendPoint(0, t, double(s.outboxPending));
        m_panels[2]->setSummary(tr("%1 pending | %2 delivered").arg(s.outboxPending).arg(s.outboxDelivered));
        m_checkpointFields.value(QStringLiteral("environment"))->setText(s.environmentId);
        m_checkpointFields.value(QStringLiteral("chain"))->setText(s.chainId ? QString::number(*s.chainId) : tr("unknown"));
        m_checkpointFields.value(QStringLiteral("source"))->setText(QStringLiteral("default"));
        m_checkpointFields.value(QStringLiteral("number"))->setText(s.checkpoint ? QString::number(*s.checkpoint)
                                                                                  : tr("nothing indexed yet"));
        m_checkpointFields.value(QStringLiteral("hash"))->setText(s.checkpointHash.isEmpty() ? QStringLiteral("-") : s.checkpointHash);
        m_checkpointFields.value(QStringLiteral("policy"))->setText(s.policyVersion);
        m_checkpointFields.value(QStringLiteral("generation"))->setText(QString::number(s.generation));
        m_checkpointFields.value(QStringLiteral("verified"))->setText(s.verifiedAt.isEmpty() ? tr("not yet") : s.verifiedAt);
        m_checkpointText = s.checkpoint ? tr("checkpoint %1").arg(*s.checkpoint) : tr("nothing indexed yet");
        m_headLabel->setText(m_headLabel->text() + QStringLiteral(" | ") + m_checkpointText);
    }
    m_connectionLabel->setToolTip(s.message);
}

namespace {
QColor stateColor(health::NodeState s)
{
    switch (s) {
    case health::NodeState::CaughtUp: return QColor(0xc8, 0xf0, 0xc8);
    case health::NodeState::Lagging: return QColor(0xff, 0xe7, 0xa8);
    case health::NodeState::Offline: return QColor(0xf4, 0xb6, 0xb6);
    case health::NodeState::Forked: return QColor(0xd9, 0xc2, 0xf0);
    }
    return {};
}
} // namespace

void MainWindow::applyHealth(const health::HealthSnapshot& h, double timeSecs)
{
    m_nodeTable->setRowCount(int(h.nodes.size()));
    QStringList states;
    for (int i = 0; i < h.nodes.size(); ++i) {
        const health::NodeHealth& n = h.nodes[i];
        const QStringList cells{n.url, health::nodeStateName(n.state),
                                n.head ? QString::number(*n.head) : tr("unknown"),
                                n.latencyMs >= 0 ? QString::number(n.latencyMs) : QStringLiteral("-"),
                                n.lastError};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = m_nodeTable->item(i, c);
            if (!item) {
                item = new QTableWidgetItem;
                m_nodeTable->setItem(i, c, item);
            }
            item->setText(cells[c]);
            if (c == 1)
                item->setBackground(stateColor(n.state));
        }
        if (!m_nodeSeries.contains(n.url))
            m_nodeSeries.insert(n.url, m_panels[3]->addSeries(n.url, QColor::fromHsv((i * 67) % 360, 200, 200)));
        if (n.head && n.state != health::NodeState::Offline)
            m_panels[3]->appendPoint(m_nodeSeries.value(n.url), timeSecs, double(*n.head));
        states << health::nodeStateName(n.state);
    }
    m_panels[3]->setSummary(tr("%1 node(s): %2 | ready height %3")
                                .arg(h.nodes.size())
                                .arg(states.join(QStringLiteral(", ")),
                                     h.readyHeight ? QString::number(*h.readyHeight) : tr("none")));
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
    m_log->appendPlainText(QStringLiteral("%1 [%2] %3")
                               .arg(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss")),
                                    level, text));
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    emit closing();
    event->accept();
}

} // namespace forkscope::ui
