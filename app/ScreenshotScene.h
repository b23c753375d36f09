#pragma once

#include "engine/EngineStatus.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace forkscope::engine {
class EngineApi;
}
namespace forkscope::ui {
class MainWindow;
}

namespace forkscope::app {

// The screenshots of README.md and docs/app.md (packaging/screenshot.sh): the real app on its
// defaults, driven through the same EngineApi the toolbars use, grabbed once what the scene shows
// is true of the window (not after a guessed delay), with any dialog it opened drawn over it.
class ScreenshotScene : public QObject
{
    Q_OBJECT
public:
    enum class Scene {
        Synced,      // the main window at the head
        Reorg,       // after an injected reorg, its diff open
        Incomplete,  // the indexed node hides logs: the data-incomplete banner
        Unreachable, // --rpc to a closed port: the error state
        Contracts,   // the Contracts tab open on the lab's sources
        ForkTree,    // the Fork tree tab after three injected reorgs
    };
    static std::optional<Scene> fromName(const QString& name);
    static QStringList names();

    // Grabs into `path` once the scene is ready, no sooner than `minMs`; gives up (exit
    // code 1, one line naming the scene) after `minMs` + kTimeoutMs.
    ScreenshotScene(Scene scene, engine::EngineApi& host, ui::MainWindow& window, QString path,
                    int minMs);
    void start();
    static constexpr int kTimeoutMs = 90000;

private:
    void onStatus(const engine::EngineStatus& status);
    bool ready() const;
    // Why the engine stopped for good (it cannot start, or the database cannot be opened or
    // written); empty while it runs.
    QString halted() const;
    void grab();

    Scene m_scene;
    engine::EngineApi& m_host;
    ui::MainWindow& m_window;
    QString m_path;
    int m_minMs;
    engine::EngineStatus m_last;
    QElapsedTimer m_clock; // since start(): the least delay and the time-out
    void injectNextReorg(const engine::EngineStatus& status);

    bool m_acted = false; // the scene's action (reorg, fault) was sent
    bool m_diffAsked = false;
    bool m_done = false;
    int m_reorgsSent = 0; // the fork tree scene's, one at a time
};

} // namespace forkscope::app
