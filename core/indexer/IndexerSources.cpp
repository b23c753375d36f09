// Contracts added to an environment already indexed (docs/sources.md): which ones a run
// adds, where their backfill starts, and the round's batch of it next to the head's.
#include "Checkpoint.h"
#include "Indexer.h"
#include "IndexerErrors.h"
#include "SourceBackfill.h"

#include <algorithm>

namespace forkscope::indexer {

namespace {

bool isAddressToken(const QString& token)
{
    return token.size() == 42 && token.startsWith(QLatin1String("0x"));
}

} // namespace

QList<AddedSource> Indexer::splitAddedContracts(const Checkpoint& cp)
{
    if (cp.contracts.isEmpty())
        return {}; // written before schema v3: this run's set is adopted
    const QStringList had = cp.contracts.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QString wantedText = contractSetText(m_config.sourceAddresses(), m_config.factoryRules());
    const QStringList wanted = wantedText.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QStringList left;
    for (const QString& token : had)
        if (!wanted.contains(token))
            left << token;
    for (const AddedSource& s : m_store.addedSources())
        if (s.state == SourceState::Pending && !wanted.contains(s.setToken()))
            left << s.setToken();
    if (!left.isEmpty())
        throw ContractSetChangedError(contractsLeftOutMessage(m_config.environmentId, had, left));
    // The set records a factory's address beside its rule: an added factory is one source,
    // its rule's.
    const QList<chain::Address> factories = wire::factoryAddresses(m_config.factories);
    QList<AddedSource> added;
    for (const QString& token : wanted) {
        if (had.contains(token))
            continue;
        AddedSource a;
        if (isAddressToken(token)) {
            a.address = chain::Address::fromHex(token, QStringLiteral("contract"));
            if (factories.contains(a.address))
                continue;
        } else {
            const auto rule = wire::FactorySource::fromRuleText(token);
            if (!rule) // a word this build does not know
                throw ContractSetChangedError(
                    contractSetChangedMessage(m_config.environmentId, cp.contracts, wantedText));
            a.address = rule->factory();
            a.factoryRule = token;
        }
        added.append(a);
    }
    // The head goes on with the checkpoint's set; the added ones join it when their
    // backfill reaches the checkpoint.
    m_config.contracts.removeIf([&](const chain::Address& c) {
        return std::any_of(added.cbegin(), added.cend(), [&](const AddedSource& a) {
            return a.factoryRule.isEmpty() && a.address == c;
        });
    });
    m_config.factories.removeIf([&](const wire::FactorySource& f) {
        return std::any_of(added.cbegin(), added.cend(),
                           [&](const AddedSource& a) { return a.factoryRule == f.ruleText(); });
    });
    return added;
}

void Indexer::prepareSources(const Checkpoint& cp, const QList<AddedSource>& added,
                             std::uint64_t fromBlock)
{
    m_sources = std::make_unique<SourceBackfill>(m_config, m_store, m_eth, m_registry);
    QList<chain::Address> recorded;
    int pending = 0;
    for (const AddedSource& s : m_store.addedSources()) {
        recorded.append(s.address);
        pending += s.state == SourceState::Pending ? 1 : 0;
    }
    for (const AddedSource& a : added) {
        if (recorded.contains(a.address))
            continue; // its backfill goes on from its own checkpoint
        startSource(cp, a.address, fromBlock == 0 ? std::nullopt : std::optional(fromBlock),
                    a.factoryRule);
        ++pending;
    }
    m_status.sourcesPending = pending;
}

void Indexer::startSource(const Checkpoint& cp, const chain::Address& address,
                          std::optional<std::uint64_t> fromBlock, const QString& factoryRule)
{
    if (fromBlock && *fromBlock > cp.number)
        throw IndexerError(QStringLiteral("--from-block %1 for %2 is above the checkpoint of %3 "
                                          "(block %4): an added contract is backfilled up to "
                                          "the checkpoint; give a block at or below it")
                               .arg(*fromBlock)
                               .arg(address.toHex(), m_config.environmentId)
                               .arg(cp.number));
    // An indexer prepared with nothing to add (the app's, adding one later) has none yet.
    if (!m_sources)
        m_sources = std::make_unique<SourceBackfill>(m_config, m_store, m_eth, m_registry);
    const std::uint64_t start =
        m_sources->startBlockFor(address, cp.startBlock, cp.number, fromBlock);
    m_store.addSource(address, start, factoryRule);
}

void Indexer::addSource(const chain::Address& address, std::optional<std::uint64_t> fromBlock,
                        const QString& factoryRule)
{
    if (!m_prepared)
        prepare();
    const auto cp = m_store.checkpoint();
    if (!cp)
        throw IndexerError(QStringLiteral("environment %1 has nothing indexed yet: start it with "
                                          "%2 among its sources instead")
                               .arg(m_config.environmentId, address.toHex()));
    if (m_config.sourceAddresses().contains(address))
        return; // indexed already
    for (const AddedSource& s : m_store.addedSources())
        if (s.address == address)
            return; // added already: its backfill goes on
    startSource(*cp, address, fromBlock, factoryRule);
    ++m_status.sourcesPending;
}

void Indexer::addSource(const chain::Address& address, std::optional<std::uint64_t> fromBlock)
{
    addSource(address, fromBlock, QString());
}

void Indexer::addFactory(const wire::FactorySource& factory, std::optional<std::uint64_t> fromBlock)
{
    addSource(factory.factory(), fromBlock, factory.ruleText());
}

bool Indexer::backfillSources(const Checkpoint& cp)
{
    if (!m_sources || m_status.sourcesPending == 0)
        return false;
    const SourceBackfill::Outcome o = m_sources->step(
        cp,
        [this](const AddedSource& a) {
            QList<chain::Address> all = m_config.sourceAddresses();
            all.append(a.address); // a factory's too, beside its rule
            QStringList rules = m_config.factoryRules();
            if (!a.factoryRule.isEmpty())
                rules.append(a.factoryRule);
            return contractSetText(all, rules);
        },
        m_status);
    if (o.joined)
        joined(*o.joined);
    return o.worked;
}

void Indexer::joined(const AddedSource& source)
{
    // From now on the head fetches it with the others: ranges planned without it go.
    if (source.factoryRule.isEmpty()) {
        m_config.contracts.append(source.address);
        m_own.insert(source.address);
    } else {
        // The rule read when its backfill did; the children it found are the head's now.
        m_config.factories.append(*wire::FactorySource::fromRuleText(source.factoryRule));
        m_children.reset();
        m_directory.reset();
        prepareChildren();
    }
    dropPlan();
    m_pool.reset();
}

} // namespace forkscope::indexer
