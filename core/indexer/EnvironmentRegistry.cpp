#include "EnvironmentRegistry.h"
#include "IndexerErrors.h"
#include "store/ContractReader.h"
#include "store/Database.h"

#include <QDateTime>
#include <QSqlQuery>

namespace forkscope::indexer {

namespace {
const QString kColumns =
    QStringLiteral("environment_id, chain_id, genesis_hash, rpc_url, created_at, archived_at");

Environment fromRow(const QSqlQuery& q)
{
    Environment e;
    e.id = q.value(0).toString();
    e.chainId = q.value(1).toULongLong();
    e.genesisHash = chain::Hash32::fromHex(q.value(2).toString(), QStringLiteral("genesis_hash"));
    e.rpcUrl = q.value(3).toString();
    e.createdAt = q.value(4).toString();
    e.archivedAt = q.value(5).toString();
    return e;
}
} // namespace

QList<Environment> readEnvironments(store::ContractReader& reader)
{
    // created_at is ISO 8601 UTC with milliseconds, so text order is time order; the id
    // breaks ties between environments created in the same millisecond.
    QList<Environment> out;
    for (auto q = reader.query(QStringLiteral("SELECT %1 FROM environments ORDER BY created_at "
                                              "DESC, environment_id DESC")
                                   .arg(kColumns),
                               {});
         q->next();) {
        Environment e;
        e.id = q->value(0).toString();
        e.chainId = q->value(1).toULongLong();
        e.genesisHash =
            chain::Hash32::fromHex(q->value(2).toString(), QStringLiteral("genesis_hash"));
        e.rpcUrl = q->value(3).toString();
        e.createdAt = q->value(4).toString();
        e.archivedAt = q->value(5).toString();
        out.append(e);
    }
    return out;
}

std::optional<Environment> EnvironmentRegistry::find(const QString& id)
{
    QSqlQuery q = m_db.run(
        QStringLiteral("SELECT %1 FROM environments WHERE environment_id = ?").arg(kColumns), {id});
    if (!q.next())
        return std::nullopt;
    return fromRow(q);
}

QList<Environment> EnvironmentRegistry::list()
{
    // created_at is ISO 8601 UTC with milliseconds, so text order is time order; the id
    // breaks ties between environments created in the same millisecond.
    QSqlQuery q = m_db.run(QStringLiteral("SELECT %1 FROM environments ORDER BY created_at DESC, "
                                          "environment_id DESC")
                               .arg(kColumns));
    QList<Environment> out;
    while (q.next())
        out.append(fromRow(q));
    return out;
}

void EnvironmentRegistry::archive(const QString& id, const QString& archivedAt)
{
    const auto existing = find(id);
    if (!existing)
        throw IndexerError(QStringLiteral("environment %1 does not exist").arg(id));
    if (!existing->archivedAt.isEmpty())
        throw EnvironmentArchivedError(QStringLiteral("environment %1 was already archived at %2")
                                           .arg(id, existing->archivedAt));
    m_db.run(QStringLiteral("UPDATE environments SET archived_at = ? WHERE environment_id = ? AND "
                            "archived_at IS NULL"),
             {archivedAt, id});
}

QString chainResetMessage(const Environment& env, const QUrl& rpcUrl, std::uint64_t chainId,
                          const chain::Hash32& genesisHash, const QString& outcome)
{
    return QStringLiteral("the chain was reset; open a new environment. Environment %1 "
                          "belongs to chain %2 with genesis %3, but %4 serves chain %5 with "
                          "genesis %6. %7")
        .arg(env.id)
        .arg(env.chainId)
        .arg(env.genesisHash.toHex(), rpcUrl.toString(QUrl::RemoveUserInfo))
        .arg(chainId)
        .arg(genesisHash.toHex(),
             outcome.isEmpty() ? QStringLiteral("Nothing was written") : outcome);
}

Environment EnvironmentRegistry::openForIndexing(const QString& id, std::uint64_t chainId,
                                                 const chain::Hash32& genesisHash,
                                                 const QUrl& rpcUrl)
{
    if (auto existing = find(id)) {
        if (!existing->archivedAt.isEmpty())
            throw EnvironmentArchivedError(
                QStringLiteral("environment %1 was archived at %2 and is read-only; index into a "
                               "new --env")
                    .arg(id, existing->archivedAt));
        if (existing->chainId != chainId || existing->genesisHash != genesisHash)
            throw ChainResetError(chainResetMessage(*existing, rpcUrl, chainId, genesisHash, {}));
        return *existing;
    }
    Environment e{id, chainId, genesisHash, rpcUrl.toString(QUrl::RemoveUserInfo), store::nowUtc(),
                  {}};
    std::optional<store::WriteTransaction> tx;
    if (!m_db.inTransaction())
        tx.emplace(m_db);
    // ON CONFLICT: a second indexer may create the same environment concurrently.
    m_db.run(QStringLiteral("INSERT INTO environments (environment_id, chain_id, genesis_hash, "
                            "rpc_url, created_at, archived_at) VALUES (?, ?, ?, ?, ?, NULL) "
                            "ON CONFLICT (environment_id) DO NOTHING"),
             {e.id, qint64(e.chainId), e.genesisHash.toHex(), e.rpcUrl, e.createdAt});
    if (tx)
        tx->commit();
    return openForIndexing(id, chainId, genesisHash, rpcUrl);
}

QString EnvironmentRegistry::unknownMessage(const QString& id, const QString& where,
                                            const QList<Environment>& environments)
{
    return environments.isEmpty()
               ? QStringLiteral("environment %1 is not in %2, which has no environments yet")
                     .arg(id, where)
               : QStringLiteral("environment %1 is not in %2; known environments: %3")
                     .arg(id, where, describe(environments));
}

QString EnvironmentRegistry::describe(const QList<Environment>& environments)
{
    QStringList parts;
    for (const auto& e : environments)
        parts << (e.archivedAt.isEmpty()
                      ? QStringLiteral("%1 (live)").arg(e.id)
                      : QStringLiteral("%1 (archived %2)").arg(e.id, e.archivedAt));
    return parts.join(QStringLiteral(", "));
}

} // namespace forkscope::indexer
