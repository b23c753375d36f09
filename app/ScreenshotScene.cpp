#include "ScreenshotScene.h"
#include "BottomDrawer.h"
#include "CommandLine.h"
#include "MainWindow.h"
#include "completeness/DataIncompleteBanner.h"
#include "contracts/ContractsView.h"
#include "contracts/SourceTableModel.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"
#include "forktree/ForkTreeCanvas.h"
#include "forktree/ForkTreePainter.h"
#include "forktree/ForkTreeView.h"

#include <QApplication>
#include <QDialog>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QPainter>
#include <QTimer>

namespace forkscope::app {

std::optional<ScreenshotScene::Scene> ScreenshotScene::fromName(const QString& name)
{
    const QStringList all = names();
    const qsizetype i = all.indexOf(name);
    return i < 0 ? std::nullopt : std::optional(Scene(i));
}

QStringList ScreenshotScene::names()
{
    return {QStringLiteral("synced"),     QStringLiteral("reorg"),
            QStringLiteral("incomplete"), QStringLiteral("unreachable"),
            QStringLiteral("contracts"),  QStringLiteral("forktree")};
}

ScreenshotScene::ScreenshotScene(Scene scene, engine::EngineApi& host, ui::MainWindow& window,
                                 QString path, int minMs)
    : QObject(&window), m_scene(scene), m_host(host), m_window(window), m_path(std::move(path)),
      m_minMs(minMs)
{
    connect(&host, &engine::EngineApi::statusAvailable, this, &ScreenshotScene::onStatus);
}

void ScreenshotScene::start()
{
    m_clock.start();
    auto* poll = new QTimer(this);
    poll->setInterval(250);
    connect(poll, &QTimer::timeout, this, [this, poll] {
        const qint64 elapsed = m_clock.elapsed();
        if (const QString why = halted(); !why.isEmpty()) {
            // No scene comes after this without the user's Retry: say why now, not after
            // the timeout.
            poll->stop();
            printError(QStringLiteral("screenshot scene %1: the engine stopped: %2; no file "
                                      "written")
                           .arg(names().value(int(m_scene)), why));
            QApplication::exit(ExitFailure);
        } else if (elapsed >= m_minMs && ready()) {
            poll->stop();
            grab();
        } else if (elapsed > m_minMs + kTimeoutMs) {
            poll->stop();
            printError(QStringLiteral("screenshot scene %1: not reached in %2 s; no file written")
                           .arg(names().value(int(m_scene)))
                           .arg((m_minMs + kTimeoutMs) / 1000));
            QApplication::exit(ExitFailure);
        }
    });
    poll->start();
}

void ScreenshotScene::onStatus(const engine::EngineStatus& s)
{
    m_last = s;
    // Following the head is enough to act: on a busy machine the chain the demo traffic
    // mines can stay a block or two ahead of every status for minutes.
    using Kind = engine::DisplayState::Kind;
    const Kind kind = engine::displayState(s).kind;
    const auto lag = engine::displayLag(s);
    const bool following = kind == Kind::Synced || (kind == Kind::Syncing && lag && *lag <= 2);
    if (!m_acted && following && s.labReady && s.checkpoint.value_or(0) > 5) {
        if (m_scene == Scene::Reorg) {
            m_acted = true;
            m_host.injectReorg(3, 0);
        } else if (m_scene == Scene::Contracts) {
            m_acted = true;
            ui::BottomDrawer* drawer = m_window.drawer();
            drawer->showPage(drawer->indexOfPage(m_window.contractsView()));
        } else if (m_scene == Scene::ForkTree) {
            m_acted = true;
            ui::BottomDrawer* drawer = m_window.drawer();
            drawer->showPage(drawer->indexOfPage(m_window.forkTreeView()));
        } else if (m_scene == Scene::Incomplete) {
            m_acted = true;
            // The indexed node (lab node 1) hides every log of half the blocks: the bloom
            // check proves it, as in the lab's own test.
            m_host.setProxyKnobs(0, QJsonObject{{QStringLiteral("dropBlockRate"), 0.5}});
        }
    }
    if (m_scene == Scene::ForkTree && m_acted)
        injectNextReorg(s);
    // Once the new chain is indexed past the old head, so the diff can say what came back.
    if (m_scene == Scene::Reorg && m_acted && !m_diffAsked && !s.recentReorgs.isEmpty()) {
        const engine::ReorgMark& r = s.recentReorgs.last();
        if (s.checkpoint.value_or(0) > quint64(r.forkBlock + r.depth)) {
            m_diffAsked = true; // the reorg panel opens the diff when it arrives
            m_host.requestReorgDiff(r.id);
        }
    }
}

// Three reorgs of different depths a few blocks apart, each once the indexer has followed the
// one before past its old head, so the tree shows three separate branches.
void ScreenshotScene::injectNextReorg(const engine::EngineStatus& s)
{
    static constexpr int kDepths[] = {2, 4, 3};
    if (m_reorgsSent >= int(std::size(kDepths)) || s.recentReorgs.size() < m_reorgsSent)
        return;
    if (m_reorgsSent > 0) {
        const engine::ReorgMark& r = s.recentReorgs.last();
        if (s.checkpoint.value_or(0) < quint64(r.forkBlock + r.depth + 3))
            return;
    }
    m_host.injectReorg(kDepths[m_reorgsSent++], 0);
}

QString ScreenshotScene::halted() const
{
    using S = engine::EngineStatus;
    if (m_last.connection == S::Connection::Failed)
        return m_last.message.isEmpty() ? QStringLiteral("it could not start") : m_last.message;
    if (m_last.indexerHalt == S::IndexerHalt::Database)
        return m_last.indexerFailure.isEmpty()
                   ? QStringLiteral("the database cannot be opened or written")
                   : m_last.indexerFailure;
    return {};
}

bool ScreenshotScene::ready() const
{
    const engine::DisplayState::Kind kind = engine::displayState(m_last).kind;
    switch (m_scene) {
    case Scene::Synced:
        return kind == engine::DisplayState::Kind::Synced;
    case Scene::Reorg:
        for (QWidget* w : QApplication::topLevelWidgets())
            if (qobject_cast<QDialog*>(w) && w->isVisible())
                return true;
        return false;
    case Scene::Incomplete: {
        // The banner and the node it names shown as dropping logs: the picture says the same
        // thing twice, as the window does a poll later.
        if (!m_window.dataIncompleteBanner()->isVisible())
            return false;
        for (const health::NodeHealth& n : m_last.health.nodes)
            if (n.state == health::NodeState::DroppingLogs)
                return true;
        return false;
    }
    case Scene::Unreachable:
        return kind == engine::DisplayState::Kind::NodeUnreachable;
    case Scene::ForkTree:
        // Every reorg's branch on screen, in the tab's latest window.
        return m_window.forkTreeView()->isVisible() && m_reorgsSent == 3 &&
               m_window.forkTreeView()->treeLayout().branches.size() >= 3;
    case Scene::Contracts:
        // The tab open, with the sources its snapshot listed.
        return m_window.contractsView()->isVisible() &&
               m_window.contractsView()->sources()->rowCount() > 0;
    }
    return false;
}

void ScreenshotScene::grab()
{
    if (std::exchange(m_done, true))
        return;
    if (m_scene == Scene::ForkTree) { // every branch in the picture, as "fit" would show it
        ui::ForkTreeCanvas* canvas = m_window.forkTreeView()->canvas();
        canvas->setViewport(ui::ForkTreePainter::fit(canvas->rect(), canvas->treeLayout()));
    }
    QPixmap shot = m_window.grab();
    // A dialog the scene opened is drawn over the window, centred as a window manager would.
    QPainter p(&shot);
    for (QWidget* w : QApplication::topLevelWidgets())
        if (qobject_cast<QDialog*>(w) && w->isVisible()) {
            const QPixmap dialog = w->grab();
            const QPoint at((shot.width() - dialog.width()) / 2,
                            (shot.height() - dialog.height()) / 2);
            p.fillRect(QRect(at + QPoint(3, 3), dialog.size()), QColor(0, 0, 0, 60)); // shadow
            p.drawPixmap(at, dialog);
            p.setPen(QColor(120, 120, 120));
            p.drawRect(QRect(at, dialog.size()).adjusted(0, 0, -1, -1));
        }
    p.end();
    if (!shot.save(m_path)) {
        printError(QStringLiteral("cannot write screenshot %1").arg(m_path));
        QApplication::exit(ExitFailure);
        return;
    }
    QApplication::exit(ExitOk);
}

} // namespace forkscope::app
