#pragma once

#include "chain/Address.h"
#include "indexer/EnvironmentRegistry.h"

namespace forkscope::store::pg {

class PgConnection;

// EnvironmentRegistry on a shared PostgreSQL database: the same rows (`environments`), the
// same refusals. Every indexer process opens its environment through it before it writes,
// so a process whose node serves another chain (a reset devnet, a wrong --rpc) is refused
// in one line instead of mixing a second history into the shared index.
class PgEnvironmentRegistry
{
public:
    explicit PgEnvironmentRegistry(PgConnection& db) : m_db(db) {}

    std::optional<indexer::Environment> find(const QString& id);
    // Every environment, newest (created_at) first.
    QList<indexer::Environment> list();
    // Creates the environment, or checks that the node is still its chain and that the
    // process indexes the same contracts, decoded with the same ABI (`abiDigest`, empty for
    // none), as the others (an environment opened with no contracts, by a lab reset, takes
    // the first indexer's contracts and ABI). Throws ChainResetError,
    // ContractSetChangedError or EnvironmentArchivedError; nothing is written then. Commits
    // on its own (never inside a caller's transaction).
    indexer::Environment openForIndexing(const QString& id, std::uint64_t chainId,
                                         const chain::Hash32& genesisHash, const QUrl& rpcUrl,
                                         const QList<chain::Address>& contracts,
                                         const QString& abiDigest = {},
                                         const QStringList& factoryRules = {});
    // Marks a live environment archived (read-only history; every row is kept), in the
    // caller's transaction. Throws EnvironmentArchivedError if it already is, IndexerError
    // if it does not exist.
    void archive(const QString& id, const QString& archivedAt);
    // Inside a writer's transaction: throws EnvironmentArchivedError when the environment
    // was archived (a lab reset: its chain is gone), and holds it live until commit (a
    // reset waits), so nothing of a new chain is ever written into, or rolled back out
    // of, the old chain's history.
    void requireLive(const QString& id);
    // The contract set recorded for the environment (sorted 0x hex), empty when unknown.
    QStringList contracts(const QString& id);

private:
    PgConnection& m_db;
};

} // namespace forkscope::store::pg
