// Contracts added to an environment already indexed (docs/sources.md): which ones a run
// adds, where their backfill starts, and the round's batch of it next to the head's.
#include "Checkpoint.h"
#include "Indexer.h"
#include "IndexerErrors.h"
#include "SourceBackfill.h"

namespace forkscope::indexer {

namespace {

bool isAddressToken(const QString& token)
{
    return token.size() == 42 && token.startsWith(QLatin1String("0x"));
}

} // namespace

QList<chain::Address> Indexer::splitAddedContracts(const Checkpoint& cp)
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
        if (s.state == SourceState::Pending && !wanted.contains(s.address.toHex()))
            left << s.address.toHex();
    if (!left.isEmpty())
        throw ContractSetChangedError(contractsLeftOutMessage(m_config.environmentId, had, left));
    QList<chain::Address> added;
    for (const QString& token : wanted) {
        if (had.contains(token))
            continue;
        if (!isAddressToken(token)) // a factory added later: not supported yet
            throw ContractSetChangedError(
                contractSetChangedMessage(m_config.environmentId, cp.contracts, wantedText));
        added.append(chain::Address::fromHex(token, QStringLiteral("contract")));
    }
    // The head goes on with the checkpoint's set; the added ones join it when their
    // backfill reaches the checkpoint.
    m_config.contracts.removeIf([&](const chain::Address& a) { return added.contains(a); });
    return added;
}

void Indexer::prepareSources(const Checkpoint& cp, const QList<chain::Address>& added,
                             std::uint64_t fromBlock)
{
    m_sources = std::make_unique<SourceBackfill>(m_config, m_store, m_eth, m_registry);
    QList<chain::Address> recorded;
    int pending = 0;
    for (const AddedSource& s : m_store.addedSources()) {
        recorded.append(s.address);
        pending += s.state == SourceState::Pending ? 1 : 0;
    }
    for (const chain::Address& a : added) {
        if (recorded.contains(a))
            continue; // its backfill goes on from its own checkpoint
        startSource(cp, a, fromBlock == 0 ? std::nullopt : std::optional(fromBlock));
        ++pending;
    }
    m_status.sourcesPending = pending;
}

void Indexer::startSource(const Checkpoint& cp, const chain::Address& address,
                          std::optional<std::uint64_t> fromBlock)
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
    m_store.addSource(address, start);
}

void Indexer::addSource(const chain::Address& address, std::optional<std::uint64_t> fromBlock)
{
    if (!m_prepared)
        prepare();
    const auto cp = m_store.checkpoint();
    if (!cp)
        throw IndexerError(QStringLiteral("environment %1 has nothing indexed yet: start it with "
                                          "%2 among its contracts instead")
                               .arg(m_config.environmentId, address.toHex()));
    if (m_config.sourceAddresses().contains(address))
        return; // indexed already
    for (const AddedSource& s : m_store.addedSources())
        if (s.address == address)
            return; // added already: its backfill goes on
    startSource(*cp, address, fromBlock);
    ++m_status.sourcesPending;
}

bool Indexer::backfillSources(const Checkpoint& cp)
{
    if (!m_sources || m_status.sourcesPending == 0)
        return false;
    const SourceBackfill::Outcome o = m_sources->step(
        cp,
        [this](const chain::Address& a) {
            QList<chain::Address> joined = m_config.contracts;
            joined.append(a);
            QList<chain::Address> all = joined;
            for (const chain::Address& f : wire::factoryAddresses(m_config.factories))
                if (!all.contains(f))
                    all.append(f);
            return contractSetText(all, m_config.factoryRules());
        },
        m_status);
    if (o.joined) {
        // From now on the head fetches it with the others: ranges planned without it go.
        m_config.contracts.append(*o.joined);
        m_own.insert(*o.joined);
        dropPlan();
        m_pool.reset();
    }
    return o.worked;
}

} // namespace forkscope::indexer
