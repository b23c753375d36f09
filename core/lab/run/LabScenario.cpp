#include "LabScenario.h"

#include <QJsonDocument>
#include <QRandomGenerator>

namespace forkscope::lab {

namespace {

struct ScenarioName
{
    LabScenario scenario;
    const char* name;
};

constexpr ScenarioName kScenarioNames[] = {
    {LabScenario::ReorgStorm, "reorg-storm"},
    {LabScenario::DeepReorg, "deep-reorg"},
    {LabScenario::LaggingReplica, "lagging-replica"},
    {LabScenario::SilentLogCap, "silent-log-cap"},
    {LabScenario::DroppedBlockLogs, "dropped-block-logs"},
    {LabScenario::FlappingOffline, "flapping-offline"},
    {LabScenario::KillRestart, "kill-restart"},
};

LabStep transfers(int blocks, bool audit = false)
{
    LabStep s;
    s.action = LabStep::Action::Transfers;
    s.count = blocks;
    s.audit = audit;
    return s;
}

LabStep action(LabStep::Action a, int count = 0)
{
    LabStep s;
    s.action = a;
    s.count = count;
    return s;
}

LabStep fault(const QJsonObject& knobs)
{
    LabStep s = action(LabStep::Action::Fault);
    s.knobs = knobs;
    return s;
}

LabStep reorg(int depth, int offset)
{
    LabStep s = action(LabStep::Action::Reorg, depth);
    s.offset = offset;
    return s;
}

} // namespace

QStringList labScenarioNames()
{
    QStringList out;
    for (const ScenarioName& n : kScenarioNames)
        out << QString::fromLatin1(n.name);
    return out;
}

QString labScenarioName(LabScenario s)
{
    for (const ScenarioName& n : kScenarioNames)
        if (n.scenario == s)
            return QString::fromLatin1(n.name);
    return {};
}

std::optional<LabScenario> labScenarioNamed(const QString& name)
{
    for (const ScenarioName& n : kScenarioNames)
        if (name == QLatin1String(n.name))
            return n.scenario;
    return std::nullopt;
}

QString LabStep::describe() const
{
    switch (action) {
    case Action::Transfers:
        return count == 1 ? QStringLiteral("1 block of transfers")
                          : QStringLiteral("%1 blocks of transfers").arg(count);
    case Action::Reorg:
        return offset < 0 ? QStringLiteral("reorg of depth %1").arg(count)
                          : QStringLiteral("reorg of depth %1, a transfer mined again at offset "
                                           "%2 of the new branch")
                                .arg(count)
                                .arg(offset);
    case Action::Fault:
        return QStringLiteral("fault on the node: %1")
            .arg(QString::fromUtf8(QJsonDocument(knobs).toJson(QJsonDocument::Compact)));
    case Action::ClearFaults:
        return QStringLiteral("faults cleared");
    case Action::Replica:
        return count ? QStringLiteral("the balancer sends requests to a replica 5 blocks behind")
                     : QStringLiteral("the balancer uses the healthy node only");
    case Action::KillIndexer:
        return QStringLiteral("indexer killed (SIGKILL)");
    case Action::StartIndexer:
        return QStringLiteral("indexer started again");
    }
    return {};
}

bool LabStep::withholdsLogs() const
{
    if (action != Action::Fault)
        return false;
    for (const char* k : {"logCap", "dropLogRate", "dropBlockRate", "dropLogs"})
        if (knobs.value(QLatin1String(k)).toDouble() > 0 || knobs.value(QLatin1String(k)).toBool())
            return true;
    return false;
}

QList<LabStep> planLabScenario(LabScenario scenario, quint32 seed)
{
    QRandomGenerator rng(seed);
    // Enough blocks above the tokens' deployments that no reorg reaches them.
    QList<LabStep> plan{transfers(14, true)};
    switch (scenario) {
    case LabScenario::ReorgStorm:
        for (int i = 0; i < 6; ++i) {
            const int depth = rng.bounded(1, 13);
            plan << reorg(depth, rng.bounded(0, depth)) << transfers(2, true);
        }
        break;
    case LabScenario::DeepReorg:
        plan << transfers(40);
        {
            const int depth = rng.bounded(24, 41);
            plan << reorg(depth, rng.bounded(0, depth)) << transfers(2, true);
        }
        break;
    case LabScenario::LaggingReplica:
        plan << action(LabStep::Action::Replica, 1) << transfers(rng.bounded(4, 9), true)
             << transfers(3, true) << action(LabStep::Action::Replica, 0) << transfers(2, true);
        break;
    case LabScenario::SilentLogCap:
        plan << fault({{QStringLiteral("logCap"), 3},
                       {QStringLiteral("logCapMode"), QStringLiteral("silent")}})
             << transfers(rng.bounded(4, 9), true) << action(LabStep::Action::ClearFaults)
             << transfers(2, true);
        break;
    case LabScenario::DroppedBlockLogs:
        plan << fault({{QStringLiteral("dropBlockRate"), 0.3},
                       {QStringLiteral("dropInReceipts"), false}})
             << transfers(rng.bounded(6, 13), true) << action(LabStep::Action::ClearFaults)
             << transfers(2, true);
        break;
    case LabScenario::FlappingOffline:
        for (int i = 0; i < 4; ++i)
            plan << fault({{QStringLiteral("offline"), true}}) << transfers(rng.bounded(1, 4))
                 << action(LabStep::Action::ClearFaults) << transfers(1);
        plan.last().audit = true;
        break;
    case LabScenario::KillRestart:
        plan << transfers(rng.bounded(8, 17)) << action(LabStep::Action::KillIndexer)
             << transfers(rng.bounded(2, 6)) << action(LabStep::Action::StartIndexer)
             << transfers(1, true);
        break;
    }
    return plan;
}

} // namespace forkscope::lab
