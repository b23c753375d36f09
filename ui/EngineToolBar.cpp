#include "EngineToolBar.h"
#include "DiscardLabConfirm.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"

#include <QAction>
#include <QMenu>

namespace forkscope::ui {

using engine::EngineApi;
using engine::EngineStatus;

EngineToolBar::EngineToolBar(EngineApi* host, QWidget* parent)
    : QToolBar(tr("Engine"), parent), m_menu(new QMenu(tr("&Engine"), this)),
      m_pause(new QAction(tr("Pause indexing"), this)),
      m_devnet(new QAction(tr("Stop devnet"), this))
{
    setObjectName(QStringLiteral("engineToolbar"));
    m_pause->setObjectName(QStringLiteral("pauseIndexing"));
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    m_pause->setToolTip(
        tr("Stop or resume indexing (Ctrl+I); the node, health and demo traffic go on"));
    connect(m_pause, &QAction::triggered, host, [this, host] {
        m_paused = !m_paused;
        host->setIndexingPaused(m_paused);
        relabelToggles();
    });
    m_devnet->setObjectName(QStringLiteral("devnet"));
    m_devnet->setEnabled(false); // only for a managed anvil
    m_devnet->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_devnet->setToolTip(tr("Stop or start the managed anvil (Ctrl+D). Its chain is kept, so "
                            "starting it again continues the same environment"));
    connect(m_devnet, &QAction::triggered, host,
            [this, host] { host->setDevnetRunning(!m_devnetRunning); });
    // Restart and Stop discard a managed lab's chain: asked first (DiscardLabConfirm.h).
    auto* restart = new QAction(tr("Restart engine"), this);
    restart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    restart->setToolTip(
        tr("Stop and start again: a managed lab gets a fresh anvil and a new environment"));
    connect(restart, &QAction::triggered, this, [this] {
        if (m_discardsLab && !confirmDiscardLab(parentWidget(), tr("Restart the engine")))
            return;
        m_paused = false;
        relabelToggles();
        emit restartRequested();
    });
    m_stop = new QAction(tr("Stop engine"), this);
    m_stop->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    m_stop->setToolTip(tr("Stop indexing, health polling and the managed anvil; Start engine "
                          "starts them again"));
    connect(m_stop, &QAction::triggered, this, [this] {
        if (m_discardsLab && !confirmDiscardLab(parentWidget(), tr("Stop the engine")))
            return;
        emit stopRequested();
    });
    m_start = new QAction(tr("Start engine"), this);
    m_start->setObjectName(QStringLiteral("startEngine"));
    m_start->setToolTip(tr("Start the engine again with the current settings"));
    m_start->setEnabled(false); // only once stopped
    connect(m_start, &QAction::triggered, this, [this] {
        m_paused = false;
        relabelToggles();
        emit restartRequested();
    });
    for (QAction* a : {m_pause, m_devnet, restart, m_stop, m_start}) {
        m_menu->addAction(a);
        addAction(a);
    }
    m_menu->addSeparator();
    m_verify = m_menu->addAction(tr("Verify stored data against the node"), host,
                                 &EngineApi::verifyStoredData);
    m_verify->setObjectName(QStringLiteral("verifyStoredData"));
    m_verify->setToolTip(
        tr("Re-check every indexed block against the node (its hash, its bloom, its logs, as "
           "`forkscope verify` does); a hole raises the data-incomplete banner"));
    apply(EngineStatus{});
    connect(host, &EngineApi::statusAvailable, this, &EngineToolBar::apply);
}

void EngineToolBar::relabelToggles()
{
    m_pause->setText(m_paused ? tr("Resume indexing") : tr("Pause indexing"));
    m_devnet->setText(m_devnetRunning ? tr("Stop devnet") : tr("Start devnet"));
}

void EngineToolBar::apply(const EngineStatus& s)
{
    const bool stopped = s.connection == EngineStatus::Connection::Stopped;
    m_discardsLab = s.managedDevnet && !stopped;
    m_stop->setEnabled(!stopped);
    m_start->setEnabled(stopped);
    // What cannot work is not offered: pausing or verifying an indexer that is not there.
    const bool indexerUsable = engine::indexerCommandable(s);
    m_pause->setEnabled(indexerUsable);
    m_verify->setEnabled(indexerUsable);
    m_devnet->setEnabled(m_discardsLab); // a managed anvil, engine not stopped
    m_devnetRunning = s.devnetRunning;
    if (m_enginePaused != s.indexingPaused) {
        m_enginePaused = s.indexingPaused;
        m_paused = s.indexingPaused;
    }
    relabelToggles();
}

} // namespace forkscope::ui
