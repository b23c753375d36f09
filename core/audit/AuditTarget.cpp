#include "AuditTarget.h"
#include "AuditError.h"
#include "chain/ChainParseError.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"

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

AuditTarget AuditTarget::load(store::ContractReader& reader, const QString& environmentId)
{
    const QList<indexer::Environment> envs = indexer::readEnvironments(reader);
    const indexer::Environment* env = nullptr;
    for (const indexer::Environment& e : envs)
        if (e.id == environmentId)
            env = &e;
    if (!env)
        throw AuditError(
            AuditError::Kind::UnknownEnvironment,
            indexer::EnvironmentRegistry::unknownMessage(environmentId, reader.describe(), envs));
    if (!env->archivedAt.isEmpty())
        throw AuditError(AuditError::Kind::Archived,
                         QStringLiteral("environment %1 was archived at %2: it is read-only "
                                        "history of a chain that was reset, with no node left to "
                                        "compare it with; nothing was checked or changed")
                             .arg(env->id, env->archivedAt));
    AuditTarget t;
    t.environment = *env;
    // One source per environment (Indexer::prepare refuses a second one).
    const auto source = reader.query(QStringLiteral("SELECT source_id, block_number, block_hash, "
                                                    "start_block, policy_version, generation, "
                                                    "verified_at, contracts FROM "
                                                    "indexer_checkpoints WHERE environment_id = "
                                                    "? AND chain_id = ? ORDER BY source_id"),
                                     {env->id, qint64(env->chainId)});
    if (!source->next())
        throw AuditError(AuditError::Kind::NothingIndexed,
                         QStringLiteral("environment %1 has nothing indexed yet (no checkpoint): "
                                        "nothing to check; run `forkscope index --db %2` first")
                             .arg(env->id, reader.describe()));
    t.sourceId = source->value(0).toString();
    t.checkpoint.number = source->value(1).toULongLong();
    t.checkpoint.hash = chain::Hash32::fromHex(source->value(2).toString(),
                                               QStringLiteral("indexer_checkpoints.block_hash"));
    t.checkpoint.startBlock = source->value(3).toULongLong();
    t.checkpoint.policyVersion = source->value(4).toString();
    t.checkpoint.generation = source->value(5).toInt();
    t.checkpoint.verifiedAt = source->value(6).toString();
    t.checkpoint.contracts = source->value(7).toString();
    if (t.checkpoint.contracts.isEmpty())
        throw AuditError(AuditError::Kind::NothingIndexed,
                         QStringLiteral("the checkpoint of environment %1 does not record which "
                                        "contracts it covers (written before schema v3); run "
                                        "`forkscope index` on it once with its contracts, then "
                                        "again")
                             .arg(env->id));
    for (const QString& a : t.checkpoint.contracts.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        std::optional<wire::FactorySource> factory;
        try {
            factory = wire::FactorySource::fromRuleText(a);
        } catch (const wire::FactorySourceError& e) {
            throw AuditError(AuditError::Kind::NothingIndexed,
                             QStringLiteral("the checkpoint of environment %1 names a factory "
                                            "this Forkscope cannot read: %2")
                                 .arg(env->id, e.message()));
        }
        if (factory)
            t.factories.append(*factory);
        else
            t.contracts.append(
                chain::Address::fromHex(a, QStringLiteral("indexer_checkpoints.contracts")));
    }
    t.openAlerts = indexer::openAlerts(reader, env->id, env->chainId);
    return t;
}

QString AuditTarget::sourcesText() const
{
    QStringList parts;
    for (const chain::Address& a : contracts)
        parts << a.toHex();
    for (const wire::FactorySource& f : factories)
        parts << QStringLiteral("children of factory %1 (%2, argument %3)")
                     .arg(f.factory().toHex(), f.event().declaration(), f.childArg());
    return parts.join(QStringLiteral(", "));
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
