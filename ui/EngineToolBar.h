#pragma once

#include <QToolBar>

#include <optional>

class QMenu;

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

// The engine's controls, as a toolbar and the Engine menu: pause indexing, stop/start the
// managed anvil and verify stored data go to the host; restart and stop are the app's (it
// holds the configuration), so they are signals. Pause/Resume indexing and Stop/Start devnet
// are plain actions named by what a click does (never a check mark next to "Stop devnet"),
// and their names follow the snapshots.
class EngineToolBar : public QToolBar
{
    Q_OBJECT
public:
    explicit EngineToolBar(engine::EngineApi* host, QWidget* parent = nullptr);

    QMenu* menu() const { return m_menu; }
    QAction* pauseAction() const { return m_pause; }
    QAction* devnetAction() const { return m_devnet; }
    QAction* verifyStoredDataAction() const { return m_verify; }
    QAction* startAction() const { return m_start; }
    QAction* stopAction() const { return m_stop; }
    // Restart, Stop and Quit would archive a running managed lab (DiscardLabConfirm.h).
    bool discardsLab() const { return m_discardsLab; }

signals:
    void restartRequested();
    void stopRequested();

private:
    void apply(const engine::EngineStatus& s);
    // Labelled by what a click does: Pause/Resume indexing, Stop/Start devnet.
    void relabelToggles();
    bool m_paused = false;        // as shown: a click asks for the other
    bool m_devnetRunning = false; // as the latest snapshot says

    QMenu* m_menu;
    QAction* m_pause;
    QAction* m_devnet;
    QAction* m_verify;
    QAction* m_stop = nullptr;
    QAction* m_start = nullptr;
    bool m_discardsLab = false; // a managed lab is running: Restart and Stop discard its chain
    // The engine's pause state as last seen in a snapshot: the action follows the engine
    // only when that changes (a lab reset resumes indexing), so a snapshot already in flight
    // when the user toggles does not flip the action back.
    std::optional<bool> m_enginePaused;
};

} // namespace forkscope::ui
