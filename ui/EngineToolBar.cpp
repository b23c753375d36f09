#include "EngineToolBar.h"
#include "engine/EngineApi.h"

#include <QAction>
#include <QMenu>

namespace forkscope::ui {

using engine::EngineApi;
using engine::EngineStatus;

EngineToolBar::EngineToolBar(EngineApi* host, QWidget* parent)
    : QToolBar(tr("Engine"), parent), m_menu(new QMenu(tr("&Engine"), this)),
      m_pause(new QAction(tr("Pause indexing"), this)),
      m_devnet(new QAction(tr("Devnet running"), this))
{
    setObjectName(QStringLiteral("engineToolbar"));
    m_pause->setCheckable(true);
    m_pause->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_I));
    m_pause->setToolTip(
        tr("Stop or resume indexing (Ctrl+I); the node, health and demo traffic go on"));
    connect(m_pause, &QAction::toggled, host, &EngineApi::setIndexingPaused);
    m_devnet->setCheckable(true);
    m_devnet->setEnabled(false); // only for a managed anvil
    m_devnet->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
    m_devnet->setToolTip(tr("Stop or start the managed anvil (Ctrl+D). Its chain is kept, so "
                            "starting it again continues the same environment"));
    connect(m_devnet, &QAction::triggered, host, &EngineApi::setDevnetRunning);
    auto* restart = new QAction(tr("Restart engine"), this);
    restart->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    restart->setToolTip(
        tr("Stop and start again: a managed lab gets a fresh anvil and a new environment"));
    connect(restart, &QAction::triggered, this, [this] {
        m_pause->setChecked(false);
        emit restartRequested();
    });
    auto* stop = new QAction(tr("Stop engine"), this);
    stop->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    connect(stop, &QAction::triggered, this, &EngineToolBar::stopRequested);
    for (QAction* a : {m_pause, m_devnet, restart, stop}) {
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

void EngineToolBar::apply(const EngineStatus& s)
{
    {
        const QSignalBlocker block(m_devnet);
        m_devnet->setEnabled(s.managedDevnet && s.connection != EngineStatus::Connection::Stopped);
        m_devnet->setChecked(s.devnetRunning);
    }
    if (m_enginePaused != s.indexingPaused) {
        m_enginePaused = s.indexingPaused;
        const QSignalBlocker block(m_pause);
        m_pause->setChecked(s.indexingPaused);
    }
}

} // namespace forkscope::ui
