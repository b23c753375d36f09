#pragma once

#include "CheckpointReport.h"
#include "ReportError.h"
#include "indexer/EnvironmentRegistry.h"

namespace forkscope::report {

// Which environment a report (or the app) is about, over anything that lists and finds the
// environments (EnvironmentRegistry, or the contract's `environments` through a reader).
// `database` names it in messages (the file, or the URL without its password).

inline QStringList environmentIds(const QList<indexer::Environment>& envs)
{
    QStringList out;
    for (const auto& e : envs)
        out << e.id;
    return out;
}

// The newest live environment, or UnknownEnvironmentError saying what to run.
template <typename Registry>
QString liveEnvironmentIn(Registry&& registry, const QString& database, const QString& indexCommand)
{
    const QList<indexer::Environment> envs = registry.list();
    for (const auto& e : envs)
        if (e.archivedAt.isEmpty())
            return e.id;
    if (envs.isEmpty())
        throw UnknownEnvironmentError(
            QStringLiteral("database %1 has no environments yet; index one first with `%2`")
                .arg(database, indexCommand),
            {});
    throw UnknownEnvironmentError(QStringLiteral("database %1 has no live environment; pass "
                                                 "--env with one of: %2")
                                      .arg(database, indexer::EnvironmentRegistry::describe(envs)),
                                  environmentIds(envs));
}

// One environment's row, or UnknownEnvironmentError listing the known ids.
template <typename Registry>
EnvironmentInfo environmentIn(Registry&& registry, const QString& database,
                              const QString& environmentId)
{
    const auto env = registry.find(environmentId);
    if (!env) {
        const QList<indexer::Environment> envs = registry.list();
        throw UnknownEnvironmentError(
            indexer::EnvironmentRegistry::unknownMessage(environmentId, database, envs),
            environmentIds(envs));
    }
    EnvironmentInfo info;
    info.id = env->id;
    info.chainId = env->chainId;
    info.genesisHash = env->genesisHash.toHex();
    info.rpcUrl = env->rpcUrl;
    info.createdAt = env->createdAt;
    info.archivedAt = env->archivedAt;
    return info;
}

} // namespace forkscope::report
