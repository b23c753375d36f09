// Indexer::prepare(): what is checked once before the first batch (the node is still the
// environment's chain, one source per environment, the checkpoint's generation, start block
// and contract set), so that a run never mixes two histories or two contract sets.
#include "Checkpoint.h"
#include "Indexer.h"
#include "IndexerErrors.h"
#include "SourceFetchSpec.h"
#include "rpc/EthClient.h"

namespace forkscope::indexer {

void Indexer::prepare()
{
    m_config = m_given;
    if (!m_registry)
        m_registry = loadSourceAbi(m_config); // AbiError names the file
    m_chainId = m_eth.chainId();
    const auto genesis = m_eth.blockByNumber(0);
    if (!genesis)
        throw NodeBehindError(QStringLiteral("node answered null for the genesis block"));
    EnvironmentClaim claim;
    claim.environmentId = m_config.environmentId;
    claim.sourceId = m_config.sourceId;
    claim.chainId = m_chainId;
    claim.genesis = genesis->hash;
    claim.rpcUrl = m_config.rpcUrl;
    claim.contracts = m_config.sourceAddresses();
    claim.factoryRules = m_config.factoryRules();
    claim.abiDigest = m_registry ? m_registry->digest() : QString();
    m_store.open(claim);
    m_genesis = genesis->hash;
    m_sinceIdentityCheck.start();
    const QStringList others = m_store.otherSources();
    if (!others.isEmpty())
        throw IndexerError(QStringLiteral("environment %1 is already indexed by source %2; one "
                                          "source per environment (use another --env)")
                               .arg(m_config.environmentId, others.join(QStringLiteral(", "))));
    const QString wanted = contractSetText(m_config.sourceAddresses(), m_config.factoryRules());
    const auto cp = m_store.checkpoint();
    // Contracts this run names beyond the checkpoint's set are added, each with a backfill
    // of its own (IndexerSources.cpp); the others are fetched at the head as before.
    const QList<AddedSource> added = cp ? splitAddedContracts(*cp) : QList<AddedSource>{};
    if (cp) {
        if (cp->generation != kProjectionGeneration)
            throw GenerationMismatchError(
                QStringLiteral("the checkpoint of %1 was computed by projection generation %2, "
                               "this build is generation %3; re-index into a new --env")
                    .arg(m_config.environmentId)
                    .arg(cp->generation)
                    .arg(kProjectionGeneration));
        if (cp->startBlock != m_config.fromBlock && m_config.fromBlock != 0 && added.isEmpty())
            throw IndexerError(QStringLiteral("environment %1 was started at block %2, not %3; "
                                              "use another --env for another start block")
                                   .arg(m_config.environmentId)
                                   .arg(cp->startBlock)
                                   .arg(m_config.fromBlock));
        const std::uint64_t addedFrom = m_config.fromBlock;
        m_config.fromBlock = cp->startBlock;
        if (cp->contracts.isEmpty())
            m_store.adoptContracts(wanted); // written before schema v3: trust this run
        prepareSources(*cp, added, addedFrom);
    }
    m_forkFinder = std::make_unique<ForkFinder>(
        m_eth, [this](std::uint64_t n) { return m_store.storedHash(n); });
    m_store.coordination().start();
    prepareChildren();
    m_prepared = true;
}

} // namespace forkscope::indexer
