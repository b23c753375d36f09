#include "EnvironmentRegistry.h"
#include "IndexerErrors.h"
#include "store/Database.h"

#include <QDateTime>
#include <QSqlQuery>

namespace forkscope::indexer {

std::optional<Environment> EnvironmentRegistry::find(const QString& id)
{
    QSqlQuery q = m_db.run(QStringLiteral("SELECT chain_id, genesis_hash, rpc_url, created_at, "
                                          "archived_at FROM environments WHERE environment_id = ?"),
                           {id});
    if (!q.next())
        return std::nullopt;
    Environment e;
    e.id = id;
    e.chainId = q.value(0).toULongLong();
    e.genesisHash = chain::Hash32::fromHex(q.value(1).toString(), QStringLiteral("genesis_hash"));
    e.rpcUrl = q.value(2).toString();
    e.createdAt = q.value(3).toString();
    e.archivedAt = q.value(4).toString();
    return e;
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
            throw ChainResetError(
                QStringLiteral("the chain was reset; open a new environment. Environment %1 "
                               "belongs to chain %2 with genesis %3, but %4 serves chain %5 with "
                               "genesis %6. Nothing was written")
                    .arg(id)
                    .arg(existing->chainId)
                    .arg(existing->genesisHash.toHex(), rpcUrl.toString(QUrl::RemoveUserInfo))
                    .arg(chainId)
                    .arg(genesisHash.toHex()));
        return *existing;
    }
    Environment e{id, chainId, genesisHash, rpcUrl.toString(QUrl::RemoveUserInfo),
                  QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs), {}};
    store::WriteTransaction tx(m_db);
    // ON CONFLICT: a second indexer may create the same environment concurrently.
    m_db.run(QStringLiteral("INSERT INTO environments (environment_id, chain_id, genesis_hash, "
                            "rpc_url, created_at, archived_at) VALUES (?, ?, ?, ?, ?, NULL) "
                            "ON CONFLICT (environment_id) DO NOTHING"),
             {e.id, qint64(e.chainId), e.genesisHash.toHex(), e.rpcUrl, e.createdAt});
    tx.commit();
    return openForIndexing(id, chainId, genesisHash, rpcUrl);
}

} // namespace forkscope::indexer
