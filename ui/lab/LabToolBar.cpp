#include "LabToolBar.h"
#include "FaultProxyDialog.h"
#include "InjectReorgDialog.h"
#include "LabRunDialog.h"
#include "ResetConfirm.h"
#include "VerdictBadge.h"
#include "engine/EngineApi.h"
#include "help/Glossary.h"
#include "indexer/CrashPoints.h"

#include <QAction>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>

namespace forkscope::ui {

using engine::EngineApi;
using engine::EngineStatus;

LabToolBar::LabToolBar(EngineApi* host, QWidget* parent)
    : QToolBar(tr("Lab"), parent), m_host(host), m_menu(new QMenu(tr("&Lab"), this))
{
    setObjectName(QStringLiteral("labToolbar"));
    // The verdict first: a toolbar too narrow for the window hides its last items behind
    // its extension button, and the lab's reason to exist must stay in sight.
    m_badge = new VerdictBadge(host, this);
    addWidget(m_badge);
    addSeparator();
    addTrafficActions();
    addChainActions();
    addProxyAndProofActions();
    addCrashAndCheckActions();
    m_menu->addSeparator();
    addScenarioActions();
    m_menu->addSeparator();
    addResetAction();
    connect(host, &EngineApi::statusAvailable, this, &LabToolBar::apply);
}

bool LabToolBar::labRunning(const EngineStatus& s)
{
    return s.managedDevnet && s.devnetRunning && s.labReady &&
           s.connection != EngineStatus::Connection::Stopped;
}

bool LabToolBar::labIndexes(const EngineStatus& s)
{
    return labRunning(s) && s.indexerHalt == EngineStatus::IndexerHalt::None;
}

QAction* LabToolBar::addLabAction(const Spec& spec)
{
    auto* a = new QAction(spec.text, this);
    a->setShortcut(spec.key);
    a->setToolTip(spec.tip);
    a->setCheckable(bool(spec.checkedWhen));
    a->setEnabled(false); // until a snapshot says the lab allows it
    m_actions.insert(spec.name, a);
    m_specs.append({a, spec});
    m_menu->addAction(a);
    if (!spec.menuOnly)
        addAction(a);
    return a;
}

void LabToolBar::addTrafficActions()
{
    QAction* demo =
        addLabAction({.name = QStringLiteral("demo"),
                      .text = tr("Demo traffic"),
                      .key = QKeySequence(Qt::CTRL | Qt::Key_T),
                      .tip = tr("Send demo transfers every second (rate in the toolbar)"),
                      .checkedWhen = [](const EngineStatus& s) { return s.demoTraffic; }});
    m_demoRate = new QSpinBox(this);
    m_demoRate->setObjectName(QStringLiteral("demoRate"));
    m_demoRate->setRange(1, 200);
    m_demoRate->setValue(10);
    m_demoRate->setSuffix(tr(" transfers/s"));
    m_demoRate->setToolTip(tr("Demo traffic rate"));
    addWidget(m_demoRate);
    connect(demo, &QAction::triggered, m_host,
            [this](bool on) { m_host->setDemoTraffic(on, m_demoRate->value()); });
    connect(m_demoRate, &QSpinBox::valueChanged, m_host, [this, demo](int v) {
        if (demo->isChecked())
            m_host->setDemoTraffic(true, v);
    });
}

void LabToolBar::addChainActions()
{
    QAction* reorg =
        addLabAction({.name = QStringLiteral("reorg"),
                      .text = tr("Inject reorg..."),
                      .key = QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R),
                      .tip = tr("Replace the newest blocks with a new branch (anvil_reorg)"),
                      .enabledWhen = labIndexes});
    connect(reorg, &QAction::triggered, m_host, [this] {
        InjectReorgDialog d(this);
        if (d.exec() == QDialog::Accepted && m_host)
            m_host->injectReorg(d.depth(), d.txMode());
    });
    QAction* rollback = addLabAction(
        {.name = QStringLiteral("rollback"),
         .text = tr("Roll back N blocks..."),
         .key = QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B),
         .tip = tr("Remove the newest blocks (anvil_rollback); new blocks replace them"),
         .enabledWhen = labIndexes});
    connect(rollback, &QAction::triggered, m_host, [this] {
        bool ok = false;
        // The range is said, not only enforced: a 99 typed into the box becomes 64.
        const int n =
            QInputDialog::getInt(this, tr("Roll back"),
                                 tr("Blocks to remove from the head (1 to 64):"), 3, 1, 64, 1, &ok);
        if (ok && m_host)
            m_host->rollbackBlocks(n);
    });
}

void LabToolBar::addProxyAndProofActions()
{
    QAction* proxy =
        addLabAction({.name = QStringLiteral("proxy"),
                      .text = tr("Fault proxy..."),
                      .key = QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F),
                      .tip = tr("Latency, errors, lag, outage and log caps per lab node"),
                      .enabledWhen = [](const EngineStatus& s) {
                          return labRunning(s) && !s.labNodes.isEmpty();
                      }});
    connect(proxy, &QAction::triggered, m_host, [this] {
        FaultProxyDialog d(m_labNodes, m_proxyKnobs, m_indexedNode, this);
        if (d.exec() == QDialog::Accepted && m_host)
            m_host->setProxyKnobs(d.node(), d.changes());
    });
    QAction* receipts = addLabAction(
        {.name = QStringLiteral("receipts"),
         .text = tr("Verify receipts"),
         .tip = tr("Prove every block with logs of ours against its receipts root (the header "
                   "hash and the receipts trie recomputed): catches any log a node omits, adds "
                   "or alters, at two calls per block"),
         .checkedWhen = [](const EngineStatus& s) { return s.verifyReceipts; },
         .menuOnly = true});
    connect(receipts, &QAction::triggered, m_host, &EngineApi::setVerifyReceipts);
}

void LabToolBar::addCrashAndCheckActions()
{
    QAction* crash =
        addLabAction({.name = QStringLiteral("crash"),
                      .text = tr("Crash the indexer..."),
                      .key = QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K),
                      .tip = tr("Kill the indexer at a crash point and watch it recover from the "
                                "database.\n\n") +
                             explain({QStringLiteral("crash points")}),
                      .enabledWhen = labIndexes});
    connect(crash, &QAction::triggered, m_host, [this] {
        bool ok = false;
        const QString point = QInputDialog::getItem(this, tr("Crash the indexer"),
                                                    tr("Crash point (the indexer dies there as if "
                                                       "killed, then restarts from the database):"),
                                                    indexer::crashPointNames(), 0, false, &ok);
        if (ok && m_host)
            m_host->crashIndexer(point);
    });
    // Any environment can be checked, managed lab or not.
    QAction* check = addLabAction(
        {.name = QStringLiteral("check"),
         .text = tr("Check invariants now"),
         .key = QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V),
         .tip = tr("Check the four invariants against the node once the indexer has caught up"),
         .enabledWhen = [](const EngineStatus& s) { return !s.environmentId.isEmpty(); }});
    connect(check, &QAction::triggered, m_host,
            [this] { m_host->checkInvariants(tr("a check on request")); });
}

void LabToolBar::addResetAction()
{
    QAction* reset = addLabAction(
        {.name = QStringLiteral("reset"),
         .text = tr("Reset lab environment..."),
         .key = QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
         .tip = tr("Archive this environment (kept, read-only) and start a fresh chain in a new "
                   "one")});
    connect(reset, &QAction::triggered, m_host, [this] { confirmReset(); });
}

void LabToolBar::confirmReset()
{
    if (confirmLabReset(this, m_environment) && m_host)
        m_host->resetLab();
}

void LabToolBar::apply(const EngineStatus& s)
{
    for (const auto& [action, spec] : m_specs) {
        action->setEnabled(spec.enabledWhen(s));
        if (spec.checkedWhen) {
            const QSignalBlocker block(action); // following the engine is not a request
            action->setChecked(spec.checkedWhen(s));
        }
    }
    // Follow the engine's rate only when the engine changed it: a snapshot still carrying
    // the old rate must not overwrite what the user just typed.
    if (s.demoTransfersPerTick > 0 && s.demoTransfersPerTick != m_engineDemoRate) {
        m_engineDemoRate = s.demoTransfersPerTick;
        const QSignalBlocker block(m_demoRate);
        m_demoRate->setValue(s.demoTransfersPerTick);
    }
    if (!s.environmentId.isEmpty())
        m_environment = s.environmentId;
    m_labNodes = s.labNodes;
    m_indexedNode = s.endpoint;
    m_proxyKnobs = s.proxyKnobs;
}

void LabToolBar::addScenarioActions()
{
    // The scenarios a lab shows in one click; menu entries only, the toolbar
    // keeps the everyday actions.
    QAction* replica = addLabAction(
        {.name = QStringLiteral("replica"),
         .text = tr("Forked replica on node 2"),
         .tip = tr("Node 2 serves a second anvil forked from the lab's chain a few blocks "
                   "below the head, with blocks of its own: node health shows it forked, the "
                   "indexer (node 1) is unaffected. Click again to stop it."),
         .enabledWhen =
             [](const EngineStatus& s) { return labIndexes(s) && s.labNodes.size() >= 2; },
         .checkedWhen = [](const EngineStatus& s) { return !s.replicaUrl.isEmpty(); },
         .menuOnly = true});
    connect(replica, &QAction::triggered, m_host, [this](bool on) {
        if (on)
            m_host->startForkedReplica();
        else
            m_host->stopForkedReplica();
    });
    QAction* writers = addLabAction(
        {.name = QStringLiteral("writers"),
         .text = tr("Second writer (8 s)"),
         .tip = tr("Starts a second indexer on this environment for 8 s, racing the first: "
                   "the compare-and-swap on the checkpoint refuses one of every two commits "
                   "of a block (the log says which), and the verdict checks nothing doubled"),
         .enabledWhen = labIndexes,
         .checkedWhen = [](const EngineStatus& s) { return s.secondWriterRunning; },
         .menuOnly = true});
    connect(writers, &QAction::triggered, m_host, [this](bool on) {
        if (on)
            m_host->startSecondWriter(8);
    });
    QAction* lostAck = addLabAction(
        {.name = QStringLiteral("lostack"),
         .text = tr("Lose the next acknowledgement"),
         .tip = tr("The answer to the next committed batch is dropped, so the batch is sent "
                   "again: the receiver refuses it and names expectedFromBlock (the log shows "
                   "the exchange); nothing is applied twice"),
         .enabledWhen = labIndexes,
         .menuOnly = true});
    connect(lostAck, &QAction::triggered, m_host, [this] { m_host->loseNextAcknowledgement(); });
    QAction* outboxAck = addLabAction(
        {.name = QStringLiteral("outboxlostack"),
         .text = tr("Lose the next outbox acknowledgement"),
         .tip = tr("The outbox delivers to the lab's own receiver, which applies the next new "
                   "row and drops its answer: the dispatcher must send it again with the same "
                   "key, and the receiver must not apply it twice. The verdict says what "
                   "arrived and what the database marked delivered"),
         .enabledWhen = labIndexes,
         .menuOnly = true});
    connect(outboxAck, &QAction::triggered, m_host,
            [this] { m_host->loseNextOutboxAcknowledgement(); });
    QAction* deep = addLabAction(
        {.name = QStringLiteral("deepreorg"),
         .text = tr("Reorg deeper than the limit"),
         .tip = tr("Mines past --max-reorg-depth, waits until the indexer stored it, then "
                   "replaces more blocks than the limit: the indexer stops, deletes nothing, "
                   "and asks you to raise the limit or reset the environment"),
         .enabledWhen = labIndexes,
         .menuOnly = true});
    connect(deep, &QAction::triggered, m_host, [this] { m_host->injectDeepReorg(); });
    // Another indexer in a lab of its own: needs nothing of the lab above, so always offered.
    QAction* run = addLabAction(
        {.name = QStringLiteral("labrun"),
         .text = tr("Run lab scenario..."),
         .tip = tr("Start another indexer against a lab of its own, play a seeded scenario of "
                   "reorgs and faults, and audit its table after each step (forkscope lab run)"),
         .enabledWhen = [](const EngineStatus&) { return true; },
         .menuOnly = true});
    run->setEnabled(true);
    connect(run, &QAction::triggered, this, [this] {
        auto* dialog = new LabRunDialog(m_host, window());
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
}

} // namespace forkscope::ui
