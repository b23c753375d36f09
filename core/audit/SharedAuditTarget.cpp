#include "SharedAuditTarget.h"
#include "AuditError.h"
#include "coord/SharedAlerts.h"
#include "indexer/PgEnvironmentRegistry.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContractReader.h"

namespace forkscope::audit {

AuditTarget loadSharedAuditTarget(store::pg::PgConnection& db, const QString& environmentId)
{
    indexer::PgEnvironmentRegistry registry(db);
    const auto env = registry.find(environmentId);
    if (!env) {
        const auto envs = registry.list();
        throw AuditError(
            AuditError::Kind::UnknownEnvironment,
            indexer::EnvironmentRegistry::unknownMessage(environmentId, db.displayUrl(), envs));
    }
    if (!env->archivedAt.isEmpty())
        throw AuditError(AuditError::Kind::Archived,
                         QStringLiteral("environment %1 was archived at %2: nothing was checked")
                             .arg(env->id, env->archivedAt));
    AuditTarget t;
    t.environment = *env;
    const auto source =
        db.run("audit_source",
               "SELECT source_id FROM indexer_checkpoints WHERE environment_id = $1 AND "
               "chain_id = $2 ORDER BY source_id",
               {env->id.toUtf8(), QByteArray::number(qulonglong(env->chainId))});
    const auto nothing = [&] {
        return AuditError(AuditError::Kind::NothingIndexed,
                          QStringLiteral("environment %1 has nothing indexed yet (its checkpoint "
                                         "has not moved): nothing to check; run `forkscope "
                                         "index --db %2` first")
                              .arg(env->id, db.displayUrl()));
    };
    if (source.rows() == 0)
        throw nothing();
    t.sourceId = QString::fromUtf8(source.text(0, 0));
    store::pg::PgContractReader reader(db);
    const auto cp = reader.checkpoint(env->id, qint64(env->chainId), t.sourceId);
    if (!cp || cp->number < cp->startBlock)
        throw nothing();
    t.checkpoint.number = std::uint64_t(cp->number);
    t.checkpoint.hash = chain::Hash32::fromHex(cp->hash, QStringLiteral("checkpoint hash"));
    t.checkpoint.startBlock = std::uint64_t(cp->startBlock);
    const QStringList contracts = registry.contracts(env->id);
    t.checkpoint.contracts = contracts.join(QLatin1Char(' '));
    for (const QString& a : contracts)
        t.contracts.append(chain::Address::fromHex(a, QStringLiteral("environments.contracts")));
    // A failed range holds the checkpoint below it: the blocks checked are complete, and
    // verify names the range all the same, as a file's open alert, never clean over a gap.
    t.openAlerts = coord::openAlerts(db, env->id, env->chainId, env->rpcUrl);
    return t;
}

} // namespace forkscope::audit
