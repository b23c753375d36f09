#pragma once

#include "EnvironmentRegistry.h"
#include "IndexerConfig.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "store/pg/PgConnection.h"
#include "wire/LogFetcher.h"

#include <memory>

namespace forkscope::indexer {

// What a process indexing into a shared PostgreSQL database works with, for the backfill
// and the head follower alike: its connection (named "forkscope OWNER" in
// pg_stat_activity, so others can see who holds which lock), with the contract ensured;
// its node client with the configured deadlines and stop token; the node's chain id,
// checked against the environment's recorded chain (PgEnvironmentRegistry); and
// the fetch spec of the configured contracts and completeness proofs.
class SharedSession
{
public:
    SharedSession(const IndexerConfig& config, const QString& owner);

    store::pg::PgConnection& db() { return *m_db; }
    rpc::EthClient& eth() { return m_eth; }
    qint64 chainId() const { return m_chainId; }
    const Environment& environment() const { return m_environment; }
    const wire::FetchSpec& fetchSpec() const { return m_spec; }

private:
    std::unique_ptr<store::pg::PgConnection> m_db;
    rpc::JsonRpcClient m_client;
    rpc::EthClient m_eth;
    qint64 m_chainId = 0;
    Environment m_environment;
    wire::FetchSpec m_spec;
};

} // namespace forkscope::indexer
