#include "SharedSession.h"
#include "IndexerErrors.h"
#include "PgEnvironmentRegistry.h"
#include "SourceFetchSpec.h"
#include "store/pg/PgContract.h"

namespace forkscope::indexer {

namespace {
std::unique_ptr<store::pg::PgConnection> openNamed(const QString& url, const QString& owner)
{
    store::pg::PgConnection::Options options;
    options.applicationName = QStringLiteral("forkscope %1").arg(owner);
    auto db = store::pg::PgConnection::open(url, options);
    store::pg::ensurePgContract(*db);
    return db;
}
} // namespace

SharedSession::SharedSession(const IndexerConfig& c, const QString& owner)
    : m_db(openNamed(c.dbPath, owner)), m_client(c.rpcUrl), m_eth(m_client)
{
    // A bad ABI file stops the process before it registers or writes anything.
    std::shared_ptr<const abi::EventRegistry> registry = loadSourceAbi(c);
    m_client.setTimeout(c.rpcTimeout);
    m_client.setMaxReplyBytes(c.maxReplyBytes);
    if (c.stopToken)
        m_client.setStopToken(c.stopToken);
    m_chainId = qint64(m_eth.chainId());
    // The node must still be the environment's chain before anything is written.
    const auto genesis = m_eth.blockByNumber(0);
    if (!genesis)
        throw IndexerError(
            QStringLiteral("the node at %1 answered null for block 0").arg(m_eth.endpointText()));
    m_environment = PgEnvironmentRegistry(*m_db).openForIndexing(
        c.environmentId, std::uint64_t(m_chainId), genesis->hash, c.rpcUrl, c.contracts,
        registry ? registry->digest() : QString());
    m_spec = sourceFetchSpec(c, registry);
}

} // namespace forkscope::indexer
