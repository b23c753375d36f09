#include "TrayStatus.h"
#include "engine/EngineApi.h"

#include <QApplication>
#include <QSystemTrayIcon>
#include <QWidget>

namespace forkscope::ui {

TrayStatus::TrayStatus(engine::EngineApi* host, QWidget* window)
    : QObject(window), m_window(window), m_text(textFor({}, {}))
{
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_icon = new QSystemTrayIcon(QApplication::windowIcon(), this);
        m_icon->setToolTip(m_text);
        // A click brings the window back.
        connect(m_icon, &QSystemTrayIcon::activated, this, [this] {
            if (m_window) {
                m_window->showNormal();
                m_window->raise();
                m_window->activateWindow();
            }
        });
        m_icon->show();
    }
    connect(host, &engine::EngineApi::statusAvailable, this, &TrayStatus::apply);
}

QString TrayStatus::textFor(const engine::DisplayState& state, const QString& environmentId)
{
    return environmentId.isEmpty() ? tr("Forkscope: %1").arg(state.text())
                                   : tr("Forkscope: %1 (%2)").arg(state.text(), environmentId);
}

bool TrayStatus::announces(const engine::DisplayState& before, const engine::DisplayState& after)
{
    return after.tone() == engine::DisplayState::Tone::Bad &&
           (before.kind != after.kind || before.reason != after.reason);
}

void TrayStatus::apply(const engine::EngineStatus& status)
{
    const engine::DisplayState state = engine::displayState(status);
    m_text = textFor(state, status.environmentId);
    if (m_icon)
        m_icon->setToolTip(m_text);
    const bool announce = announces(m_seen ? m_state : engine::DisplayState{}, state);
    m_state = state;
    m_seen = true;
    if (!announce)
        return;
    emit announced(m_text);
    if (m_icon && QSystemTrayIcon::supportsMessages())
        m_icon->showMessage(tr("Forkscope"), m_text, QSystemTrayIcon::Warning);
}

} // namespace forkscope::ui
