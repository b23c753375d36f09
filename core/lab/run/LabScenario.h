#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>

namespace forkscope::lab {

// The named scenarios `forkscope lab run` puts a foreign indexer through.
enum class LabScenario {
    ReorgStorm,       // reorgs of depth 1-12, transfers re-included at other heights
    DeepReorg,        // one reorg of 24-40 blocks
    LaggingReplica,   // a balancer that sends some requests to a replica 5 blocks behind
    SilentLogCap,     // eth_getLogs cut to 3 logs without a word
    DroppedBlockLogs, // a provider answering eth_getLogs without some blocks' logs
    FlappingOffline,  // the node goes away and comes back, again and again
    KillRestart,      // the indexer killed with SIGKILL mid-sync, then started again
};

QStringList labScenarioNames();
QString labScenarioName(LabScenario s);
std::optional<LabScenario> labScenarioNamed(const QString& name);

// One step of a scenario's plan. After a step with `audit`, the run waits until the indexer
// has caught up and audits its table.
struct LabStep
{
    enum class Action {
        Transfers,    // `count` blocks of transfers on every token
        Reorg,        // replace the top `count` blocks; a transfer mined again at `offset`
        Fault,        // apply `knobs` to the indexer's node (a fault proxy)
        ClearFaults,  // the node behaves again
        Replica,      // `count` 1: the balancer starts using the lagging replica; 0: stops
        KillIndexer,  // SIGKILL to the indexer's process group
        StartIndexer, // start it again, on its own state
    };
    Action action = Action::Transfers;
    int count = 0;
    int offset = -1; // Reorg: where in the new branch the moved transfer goes (-1: none)
    QJsonObject knobs;
    bool audit = false;

    // One line for the timeline, e.g. "reorg of depth 7, a transfer moved to offset 2".
    QString describe() const;
    // A Fault that makes the node withhold logs (a cap, dropped logs): an indexer that cannot
    // prove what it gets complete is right to wait until the fault clears.
    bool withholdsLogs() const;
};

// The steps of `scenario` for `seed`: the same seed gives the same plan.
QList<LabStep> planLabScenario(LabScenario scenario, quint32 seed);

} // namespace forkscope::lab
