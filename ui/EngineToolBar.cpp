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
    m_pause->setCheckable(true);
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    m_pause->setToolTip(
        tr("Stop or resume indexing (Ctrl+I); the node, health and demo traffic go on"));
    connect(m_pause, &QAction::toggled, host, &EngineApi::setIndexingPaused);
    // Labelled by what a click does, not by the state it is in.
    connect(m_pause, &QAction::toggled, this, &EngineToolBar::relabelToggles);
    m_devnet->setCheckable(true);
    m_devnet->setEnabled(false); // only for a managed anvil
    m_devnet->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_devnet->setToolTip(tr("Stop or start the managed anvil (Ctrl+D). Its chain is kept, so "
                            "starting it again continues the same environment"));
    connect(m_devnet, &QAction::triggered, host, &EngineApi::setDevnetRunning);
    connect(m_devnet, &QAction::toggled, this, &EngineToolBar::relabelToggles);
    // Restart and Stop discard a managed lab's chain: asked first (DiscardLabConfirm.h).
    auto* restart = new QAction(tr("Restart engine"), this);
    restart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    restart->setToolTip(
        tr("Stop and start again: a managed lab gets a fresh anvil and a new environment"));
    connect(restart, &QAction::triggered, this, [this] {
        if (m_discardsLab && !confirmDiscardLab(parentWidget(), tr("Restart the engine")))
            return;
        m_pause->setChecked(false);
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
        m_pause->setChecked(false);
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
    m_pause->setText(m_pause->isChecked() ? tr("Resume indexing") : tr("Pause indexing"));
    m_devnet->setText(m_devnet->isChecked() ? tr("Stop devnet") : tr("Start devnet"));
}

void EngineToolBar::apply(const EngineStatus& s)
{
    const bool stopped = s.connection == EngineStatus::Connection::Stopped;
    m_discardsLab = s.managedDevnet && !stopped;
    m_stop->setEnabled(!stopped);
    m_start->setEnabled(stopped);
    // What cannot work is not offered: pausing or verifying an indexer that is not there.
    const auto kind = engine::displayState(s).kind;
    const bool indexerUsable =
        kind != engine::DisplayState::Kind::Failed && kind != engine::DisplayState::Kind::Stopped;
    m_pause->setEnabled(indexerUsable);
    m_verify->setEnabled(indexerUsable);
    {
        const QSignalBlocker block(m_devnet);
        m_devnet->setEnabled(m_discardsLab); // a managed anvil, engine not stopped
        m_devnet->setChecked(s.devnetRunning);
    }
    if (m_enginePaused != s.indexingPaused) {
        m_enginePaused = s.indexingPaused;
        const QSignalBlocker block(m_pause);
        m_pause->setChecked(s.indexingPaused);
    }
    relabelToggles(); // the checks above were set with their signals blocked
}

} // namespace forkscope::ui
