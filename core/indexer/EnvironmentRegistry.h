#pragma once

#include "chain/Hash32.h"

#include <QList>
#include <QString>
#include <QUrl>
#include <cstdint>
#include <optional>

namespace forkscope::store {
class ContractReader;
class Database;
} // namespace forkscope::store

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

// The one-line refusal when a node serves another chain than the environment was recorded
// for; `outcome` ends it (default, at start: "Nothing was written").
QString chainResetMessage(const Environment& env, const QUrl& rpcUrl, std::uint64_t chainId,
                          const chain::Hash32& genesisHash, const QString& outcome);

// Every environment as a reader of the contract sees it (`environments`, on either store),
// newest (created_at) first.
QList<Environment> readEnvironments(store::ContractReader& reader);

// An environment is one self-contained history: a chain (id + genesis hash) observed under
// one id. A lab devnet can be reset, so the genesis hash is what tells two "31337"s apart.
class EnvironmentRegistry
{
public:
    explicit EnvironmentRegistry(store::Database& db) : m_db(db) {}

    std::optional<Environment> find(const QString& id);
    // Every environment, live and archived, newest (created_at) first.
    QList<Environment> list();
    // Creates the environment, or checks that the node is still the chain it was created
    // for. Throws ChainResetError (genesis or chain id differ) or EnvironmentArchivedError;
    // in both cases nothing is written. Inside a caller's write transaction it joins it
    // (so a lab reset archives and registers atomically); otherwise it commits on its own.
    Environment openForIndexing(const QString& id, std::uint64_t chainId,
                                const chain::Hash32& genesisHash, const QUrl& rpcUrl);
    // Marks a live environment archived (read-only history; every row is kept). Must run
    // inside the caller's write transaction. Throws EnvironmentArchivedError if it already
    // is, IndexerError if it does not exist.
    void archive(const QString& id, const QString& archivedAt);
    // "id (live), id (archived <when>)": what an error about an unknown id lists.
    static QString describe(const QList<Environment>& environments);
    // "environment X is not in WHERE; known environments: ..." (or "which has no
    // environments yet"): the one line every command says about an unknown id.
    static QString unknownMessage(const QString& id, const QString& where,
                                  const QList<Environment>& environments);

private:
    store::Database& m_db;
};

} // namespace forkscope::indexer
