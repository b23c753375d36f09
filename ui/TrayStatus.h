#pragma once

#include "engine/DisplayState.h"

#include <QObject>
#include <QPointer>

class QSystemTrayIcon;
class QWidget;

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

// The app's state in the system tray, from the same DisplayState as the status bar: the
// tooltip says it, and a change into a bad state (failed, node unreachable, data
// incomplete) is announced once, so a gap is loud even with the window minimised. Where the
// desktop has no tray (the offscreen platform, some window managers) there is no icon and
// text() still answers.
class TrayStatus : public QObject
{
    Q_OBJECT
public:
    TrayStatus(engine::EngineApi* host, QWidget* window);

    QString text() const { return m_text; }
    bool hasIcon() const { return m_icon != nullptr; }
    // "Forkscope: synced (lab-20261201-...)": what the tooltip says.
    static QString textFor(const engine::DisplayState& state, const QString& environmentId);
    // Whether going from `before` to `after` is announced: into a bad state, or a new one.
    static bool announces(const engine::DisplayState& before, const engine::DisplayState& after);

signals:
    // A bad state was entered: what the notification says.
    void announced(const QString& text);

private:
    void apply(const engine::EngineStatus& status);

    QPointer<QWidget> m_window;
    QSystemTrayIcon* m_icon = nullptr;
    engine::DisplayState m_state;
    bool m_seen = false;
    QString m_text;
};

} // namespace forkscope::ui
