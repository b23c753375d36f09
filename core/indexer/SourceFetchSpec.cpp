#include "SourceFetchSpec.h"

#include <QCryptographicHash>

namespace forkscope::indexer {

namespace {
// The configuration the fetcher filtered by, as the wire context asserts it.
QString configDigest(const QList<chain::Address>& contracts, const QStringList& factoryRules,
                     const QString& abiDigest)
{
    QStringList parts;
    for (const auto& a : contracts)
        parts << a.toHex();
    parts.sort();
    QStringList rules = factoryRules;
    rules.sort();
    parts << rules << abiDigest;
    return QString::fromLatin1(
        QCryptographicHash::hash(parts.join(QLatin1Char(',')).toUtf8(), QCryptographicHash::Sha256)
            .toHex()
            .left(16));
}
} // namespace

wire::FetchSpec sourceFetchSpec(const IndexerConfig& config,
                                std::shared_ptr<const abi::EventRegistry> registry,
                                std::shared_ptr<wire::ChildDirectory> children)
{
    wire::FetchSpec spec;
    spec.context = {config.sourceId, configDigest(config.contracts, config.factoryRules(),
                                                  registry ? registry->digest() : QString())};
    spec.contracts = config.sourceAddresses();
    spec.children = std::move(children);
    spec.logCap = config.logCap;
    spec.logsPerCall = config.logsPerCall;
    spec.completeness = config.completeness;
    spec.registry = std::move(registry);
    return spec;
}

std::shared_ptr<const abi::EventRegistry> loadSourceAbi(const IndexerConfig& config)
{
    if (config.abiPath.isEmpty())
        return nullptr;
    return std::make_shared<const abi::EventRegistry>(abi::EventRegistry::fromFile(config.abiPath));
}

} // namespace forkscope::indexer
