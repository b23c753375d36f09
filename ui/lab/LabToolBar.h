#pragma once

#include <QHash>
#include <QJsonObject>
#include <QKeySequence>
#include <QList>
#include <QPointer>
#include <QStringList>
#include <QToolBar>

#include <functional>

class QMenu;
class QSpinBox;

namespace forkscope::engine {
class EngineApi;
struct EngineStatus;
} // namespace forkscope::engine

namespace forkscope::ui {

class VerdictBadge;

// The lab's controls, as the Lab menu and a toolbar ending in the invariant verdict badge.
// Each action acts on the managed devnet through the host (the engine then checks the
// invariants once the indexer has caught up, and the badge shows the verdict); each is
// enabled only while the latest snapshot allows it.
class LabToolBar : public QToolBar
{
    Q_OBJECT
public:
    explicit LabToolBar(engine::EngineApi* host, QWidget* parent = nullptr);

    QMenu* menu() const { return m_menu; }
    // By name: demo, reorg, rollback, proxy, receipts, crash, check, reset, and the
    // scenarios replica, writers, lostack, deepreorg, and labrun (Run lab scenario...).
    QAction* action(const QString& name) const { return m_actions.value(name); }
    VerdictBadge* verdictBadge() const { return m_badge; }

    // When an action may be used, given the latest snapshot.
    using Condition = std::function<bool(const engine::EngineStatus&)>;
    // The managed lab is set up (demo token deployed, indexing) and its engine runs.
    static bool labRunning(const engine::EngineStatus& s);
    // ... and its indexer indexes (not stopped at a deep reorg or a block it could not get
    // whole): what changes the chain is offered only then, so no action makes a change
    // nothing will index.
    static bool labIndexes(const engine::EngineStatus& s);

    // One lab action, e.g. addLabAction({.name = "replica", .text = tr("Forked replica"),
    // .checkedWhen = [](const EngineStatus& s) { return !s.replicaUrl.isEmpty(); }}).
    struct Spec
    {
        // Every member has an initializer, so a designated list may leave any of them out.
        QString name{}; // for action(name)
        QString text{};
        QKeySequence key{};
        QString tip{};
        Condition enabledWhen = labRunning; // disabled until a snapshot meets it
        Condition checkedWhen{};            // set: a toggle whose state follows the snapshots
        bool menuOnly = false;              // not on the toolbar
    };
    // Adds the action to the Lab menu and (unless menuOnly) to the toolbar, before the
    // verdict badge. The caller connects `triggered` (to the host, or to a dialog that then
    // calls the host).
    QAction* addLabAction(const Spec& spec);

private:
    void addTrafficActions();
    void addChainActions();
    void addProxyAndProofActions();
    void addCrashAndCheckActions();
    void addResetAction();
    void addScenarioActions(); // forked replica, two writers, lost ack, deep reorg
    void confirmReset();
    void apply(const engine::EngineStatus& s);

    QPointer<engine::EngineApi> m_host;
    QMenu* m_menu;
    VerdictBadge* m_badge = nullptr;
    QSpinBox* m_demoRate = nullptr;
    QHash<QString, QAction*> m_actions;
    QList<std::pair<QAction*, Spec>> m_specs;
    // From the latest snapshot, for the dialogs.
    int m_engineDemoRate = 0;
    QString m_environment;
    QStringList m_labNodes;
    QString m_indexedNode; // the node the indexer reads (a repair may switch it)
    QList<QJsonObject> m_proxyKnobs;
};

} // namespace forkscope::ui
