#include "PgEnvironmentRegistry.h"
#include "PgConnection.h"
#include "indexer/Checkpoint.h"
#include "indexer/IndexerErrors.h"
#include "store/Database.h"

#include <algorithm>

namespace forkscope::store::pg {

using indexer::Environment;

namespace {

constexpr const char* kColumns =
    "environment_id, chain_id, genesis_hash, rpc_url, created_at, coalesce(archived_at, '')";

QList<Environment> rows(const PgResult& r)
{
    QList<Environment> out;
    for (int i = 0; i < r.rows(); ++i) {
        Environment e;
        e.id = QString::fromUtf8(r.text(i, 0));
        e.chainId = std::uint64_t(r.int64(i, 1));
        // Stored by openForIndexing as 0x hex; checked like any reply.
        e.genesisHash = chain::Hash32::fromHex(QString::fromUtf8(r.text(i, 2)),
                                               QStringLiteral("environments.genesis_hash"));
        e.rpcUrl = QString::fromUtf8(r.text(i, 3));
        e.createdAt = QString::fromUtf8(r.text(i, 4));
        e.archivedAt = QString::fromUtf8(r.text(i, 5));
        out << e;
    }
    return out;
}

} // namespace

std::optional<Environment> PgEnvironmentRegistry::find(const QString& id)
{
    const QByteArray sql =
        QByteArray("SELECT ") + kColumns + " FROM environments WHERE environment_id = $1";
    const QList<Environment> found = rows(m_db.run("pg_env_find", sql.constData(), {id.toUtf8()}));
    if (found.isEmpty())
        return std::nullopt;
    return found.first();
}

QList<Environment> PgEnvironmentRegistry::list()
{
    const QByteArray sql = QByteArray("SELECT ") + kColumns +
                           " FROM environments ORDER BY created_at DESC, environment_id";
    return rows(m_db.run("pg_env_list", sql.constData()));
}

QStringList PgEnvironmentRegistry::contracts(const QString& id)
{
    const auto r = m_db.run("pg_env_contracts",
                            "SELECT contracts FROM environment_store WHERE environment_id = $1",
                            {id.toUtf8()});
    return r.rows() == 0
               ? QStringList()
               : QString::fromUtf8(r.text(0, 0)).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

void PgEnvironmentRegistry::archive(const QString& id, const QString& archivedAt)
{
    const auto existing = find(id);
    if (!existing)
        throw indexer::IndexerError(QStringLiteral("environment %1 does not exist").arg(id));
    if (!existing->archivedAt.isEmpty())
        throw indexer::EnvironmentArchivedError(
            QStringLiteral("environment %1 was already archived at %2")
                .arg(id, existing->archivedAt));
    m_db.run("pg_env_archive",
             "UPDATE environment_store SET archived_at = $2 WHERE environment_id = $1 AND "
             "archived_at IS NULL",
             {id.toUtf8(), archivedAt.toUtf8()});
}

void PgEnvironmentRegistry::requireLive(const QString& id)
{
    const auto r = m_db.run("pg_env_live",
                            "SELECT coalesce(archived_at, '') FROM environment_store WHERE "
                            "environment_id = $1 FOR SHARE",
                            {id.toUtf8()});
    if (r.rows() == 1 && !r.text(0, 0).isEmpty())
        throw indexer::EnvironmentArchivedError(
            QStringLiteral("environment %1 was archived at %2 (its chain was reset): this "
                           "process stops, and nothing was written or rolled back")
                .arg(id, QString::fromUtf8(r.text(0, 0))));
}

Environment PgEnvironmentRegistry::openForIndexing(const QString& id, std::uint64_t chainId,
                                                   const chain::Hash32& genesisHash,
                                                   const QUrl& rpcUrl,
                                                   const QList<chain::Address>& contractList,
                                                   const QString& abiDigest,
                                                   const QStringList& factoryRules)
{
    const QString wanted = indexer::contractSetText(contractList, factoryRules);
    // ON CONFLICT: several processes start on one environment at once; the first row wins
    // and every process then checks its node against that row.
    m_db.run("pg_env_insert",
             "INSERT INTO environment_store (environment_id, chain_id, genesis_hash, rpc_url, "
             "created_at, contracts, abi_digest) VALUES ($1, $2, $3, $4, $5, $6, $7) ON "
             "CONFLICT (environment_id) DO NOTHING",
             {id.toUtf8(), QByteArray::number(qulonglong(chainId)), genesisHash.toHex().toUtf8(),
              rpcUrl.toString(QUrl::RemoveUserInfo).toUtf8(), store::nowUtc().toUtf8(),
              wanted.isEmpty() ? QByteArray("") : wanted.toUtf8(), // "": not NULL
              abiDigest.isEmpty() || wanted.isEmpty() ? QByteArray("") : abiDigest.toUtf8()});
    const auto existing = find(id);
    if (!existing)
        throw indexer::IndexerError(
            QStringLiteral("environment %1 vanished while it was opened").arg(id));
    if (!existing->archivedAt.isEmpty())
        throw indexer::EnvironmentArchivedError(
            QStringLiteral("environment %1 was archived at %2 and is read-only; index into a new "
                           "--env")
                .arg(id, existing->archivedAt));
    if (existing->chainId != chainId || existing->genesisHash != genesisHash)
        throw indexer::ChainResetError(
            indexer::chainResetMessage(*existing, rpcUrl, chainId, genesisHash, {}));
    QStringList had = contracts(id);
    if (had.isEmpty() && !wanted.isEmpty()) {
        // Registered without contracts (a lab reset): the first indexer's set becomes it,
        // by compare-and-swap, so two first indexers cannot both set theirs.
        m_db.run(
            "pg_env_adopt",
            "UPDATE environment_store SET contracts = $2, abi_digest = $3 WHERE environment_id "
            "= $1 AND contracts = ''",
            {id.toUtf8(), wanted.toUtf8(),
             abiDigest.isEmpty() ? QByteArray("") : abiDigest.toUtf8()});
        had = contracts(id);
    }
    // A run naming more contracts or factories adds them (docs/sources.md): the engine
    // backfills each and it joins the set when it reaches the checkpoint. Leaving one out is
    // refused: each process stores its ranges for its own contracts, and a smaller set would
    // leave the ranges of one process without the other's logs, below one shared checkpoint.
    const QStringList wantedTokens = wanted.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QStringList left;
    for (const QString& t : had)
        if (!wantedTokens.contains(t))
            left << t;
    if (!left.isEmpty())
        throw indexer::ContractSetChangedError(indexer::contractsLeftOutMessage(id, had, left));
    const auto recorded =
        m_db.run("pg_env_abi", "SELECT abi_digest FROM environment_store WHERE environment_id = $1",
                 {id.toUtf8()});
    const QString hadAbi =
        recorded.rows() == 1 ? QString::fromUtf8(recorded.text(0, 0)) : QString();
    if (!wanted.isEmpty() && hadAbi != abiDigest) {
        // One process decoding and another not would leave raw ranges among decoded ones
        // (and a repair without the ABI would do the same to the blocks it repairs).
        const auto describe = [](const QString& digest) {
            return digest.isEmpty() ? QStringLiteral("no ABI")
                                    : QStringLiteral("the ABI with digest %1").arg(digest);
        };
        throw indexer::ContractSetChangedError(
            QStringLiteral("environment %1 decodes its logs with %2; this process has %3: pass "
                           "the same --abi FILE as the others, or index into a new environment "
                           "(--env). Nothing was written")
                .arg(id, describe(hadAbi), describe(abiDigest)));
    }
    return *existing;
}

} // namespace forkscope::store::pg
