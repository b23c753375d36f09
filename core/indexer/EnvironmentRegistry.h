#pragma once

#include "chain/Hash32.h"

#include <QString>
#include <QUrl>
#include <optional>
#include <cstdint>

namespace forkscope::store {
class Database;
}

namespace forkscope::indexer {

struct Environment
{
    QString id;
    std::uint64_t chainId = 0;
    chain::Hash32 genesisHash;
    QString rpcUrl;
    QString createdAt;
    QString archivedAt; // empty while live
};

// An environment is one self-contained history: a chain (id + genesis hash) observed under
// one id. A lab devnet can be reset, so the genesis hash is what tells two "31337"s apart.
class EnvironmentRegistry
{
public:
    explicit EnvironmentRegistry(store::Database& db) : m_db(db) {}

    std::optional<Environment> find(const QString& id);
    // Creates the environment, or checks that the node is still the chain it was created
    // for. Throws ChainResetError (genesis or chain id differ) or EnvironmentArchivedError;
    // in both cases nothing is written.
    Environment openForIndexing(const QString& id, std::uint64_t chainId,
                                const chain::Hash32& genesisHash, const QUrl& rpcUrl);

private:
    store::Database& m_db;
};

} // namespace forkscope::indexer
