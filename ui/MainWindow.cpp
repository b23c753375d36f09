#include "MainWindow.h"
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
#include <QStatusBar>

#include "forkscope_version.h"

namespace forkscope::ui {

using engine::EngineStatus;

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_connectionLabel(new QLabel(this)), m_nodeLabel(new QLabel(this)),
      m_chainLabel(new QLabel(this)), m_headLabel(new QLabel(this)), m_dbLabel(new QLabel(this)),
      m_log(new QPlainTextEdit(this))
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

    auto* fileMenu = menuBar()->addMenu(tr("&File"));
    QAction* quit = fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    auto* viewMenu = menuBar()->addMenu(tr("&View"));
    viewMenu->addAction(dock->toggleViewAction());
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
            for (const auto& m : s.recentReorgs)
                if (m.reason == reasons[r]) {
                    times << double(m.detectedAt.toMSecsSinceEpoch()) / 1000.0;
                    depths << double(m.depth);
                }
            m_panels[1]->setBars(r, times, depths);
        }
        m_panels[1]->setSummary(tr("%1 reorg(s)").arg(s.recentReorgs.size()));
        m_panels[2]->appendPoint(0, t, double(s.outboxPending));
        m_panels[2]->setSummary(tr("%1 pending | %2 delivered").arg(s.outboxPending).arg(s.outboxDelivered));
        m_checkpointText = s.checkpoint ? tr("checkpoint %1").arg(*s.checkpoint) : tr("nothing indexed yet");
        m_headLabel->setText(m_headLabel->text() + QStringLiteral(" | ") + m_checkpointText);
    }
    m_connectionLabel->setToolTip(s.message);
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
