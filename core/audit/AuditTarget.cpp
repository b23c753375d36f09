#include "AuditTarget.h"
#include "AuditError.h"
#include "chain/ChainParseError.h"
#include "indexer/CheckpointStore.h"
#include "rpc/EthClient.h"
#include "store/Database.h"

#include <QSqlQuery>

namespace forkscope::audit {

QString checkRange(std::uint64_t startBlock, std::uint64_t checkpoint,
                   std::optional<std::uint64_t> from, std::optional<std::uint64_t> to,
                   AuditRange* range)
{
    const std::uint64_t f = from.value_or(startBlock);
    const std::uint64_t t = to.value_or(checkpoint);
    if (from && *from < startBlock)
        return QStringLiteral("--from %1 is below the start block %2: nothing is stored there")
            .arg(*from)
            .arg(startBlock);
    if (from && *from > checkpoint)
        return QStringLiteral("--from %1 is above the checkpoint %2: nothing is stored there "
                              "yet")
            .arg(*from)
            .arg(checkpoint);
    if (to && *to > checkpoint)
        return QStringLiteral("--to %1 is above the checkpoint %2: nothing is stored there yet")
            .arg(*to)
            .arg(checkpoint);
    if (to && *to < startBlock)
        return QStringLiteral("--to %1 is below the start block %2: nothing is stored there")
            .arg(*to)
            .arg(startBlock);
    if (f > t)
        return QStringLiteral("--from %1 is above --to %2").arg(f).arg(t);
    range->from = f;
    range->to = t;
    return {};
}

AuditTarget AuditTarget::load(store::Database& db, const QString& environmentId)
{
    indexer::EnvironmentRegistry registry(db);
    const auto env = registry.find(environmentId);
    if (!env) {
        const auto envs = registry.list();
        throw AuditError(
            AuditError::Kind::UnknownEnvironment,
            indexer::EnvironmentRegistry::unknownMessage(environmentId, db.path(), envs));
    }
    if (!env->archivedAt.isEmpty())
        throw AuditError(AuditError::Kind::Archived,
                         QStringLiteral("environment %1 was archived at %2: it is read-only "
                                        "history of a chain that was reset, with no node left to "
                                        "compare it with; nothing was checked or changed")
                             .arg(env->id, env->archivedAt));
    AuditTarget t;
    t.environment = *env;
    // One source per environment (Indexer::prepare refuses a second one).
    QSqlQuery q = db.run(QStringLiteral("SELECT source_id FROM indexer_checkpoints WHERE "
                                        "environment_id = ? AND chain_id = ? ORDER BY source_id"),
                         {env->id, qint64(env->chainId)});
    if (!q.next())
        throw AuditError(AuditError::Kind::NothingIndexed,
                         QStringLiteral("environment %1 has nothing indexed yet (no checkpoint): "
                                        "nothing to check; run `forkscope index` first")
                             .arg(env->id));
    t.sourceId = q.value(0).toString();
    q.finish();
    t.checkpoint = *indexer::CheckpointStore(db, env->id, env->chainId, t.sourceId).read();
    if (t.checkpoint.contracts.isEmpty())
        throw AuditError(AuditError::Kind::NothingIndexed,
                         QStringLiteral("the checkpoint of environment %1 does not record which "
                                        "contracts it covers (written before schema v3); run "
                                        "`forkscope index` on it once with its contracts, then "
                                        "again")
                             .arg(env->id));
    for (const QString& a : t.checkpoint.contracts.split(QLatin1Char(' '), Qt::SkipEmptyParts))
        t.contracts.append(
            chain::Address::fromHex(a, QStringLiteral("indexer_checkpoints.contracts")));
    t.openAlerts = indexer::CompletenessAlerts(db, env->id, env->chainId).open();
    return t;
}

QString AuditTarget::resolveRange(std::optional<std::uint64_t> from,
                                  std::optional<std::uint64_t> to, AuditRange* range) const
{
    return checkRange(checkpoint.startBlock, checkpoint.number, from, to, range);
}

void AuditTarget::checkNode(rpc::EthClient& eth, const QUrl& url, const QString& outcome) const
{
    std::uint64_t chainId = 0;
    std::optional<chain::BlockHeader> genesis;
    try {
        chainId = eth.chainId();
        genesis = eth.blockByNumber(0);
    } catch (const rpc::RpcException& e) {
        throw AuditError(
            AuditError::Kind::NodeUnavailable,
            QStringLiteral("node %1 did not answer (%2); %3")
                .arg(url.toString(QUrl::RemoveUserInfo), e.error().toString(), outcome));
    }
    if (!genesis)
        throw AuditError(AuditError::Kind::NodeUnavailable,
                         QStringLiteral("node %1 answered null for its genesis block; %2")
                             .arg(url.toString(QUrl::RemoveUserInfo), outcome));
    if (chainId != environment.chainId || genesis->hash != environment.genesisHash)
        throw AuditError(AuditError::Kind::OtherChain,
                         QStringLiteral("node %1 serves another chain than environment %2: chain "
                                        "%3 with genesis %4, not chain %5 with genesis %6; %7")
                             .arg(url.toString(QUrl::RemoveUserInfo), environment.id)
                             .arg(chainId)
                             .arg(genesis->hash.toHex())
                             .arg(environment.chainId)
                             .arg(environment.genesisHash.toHex(), outcome));
}

} // namespace forkscope::audit
