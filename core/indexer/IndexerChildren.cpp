// The indexer's side of factory sources: which children a batch needed, which of its logs
// are the source's, and what a rollback takes (ChildBook.h, wire/ChildDirectory.h).
#include "Indexer.h"

namespace forkscope::indexer {

QList<chain::Address> Indexer::watchedAddresses() const
{
    QList<chain::Address> out = m_config.sourceAddresses();
    if (m_children)
        out += m_children->addresses();
    return out;
}

void Indexer::prepareChildren()
{
    m_own.clear();
    for (const chain::Address& a : m_config.sourceAddresses())
        m_own.insert(a);
    if (m_config.factories.isEmpty())
        return;
    const QList<wire::ChildCreation> stored = m_store.children();
    if (!m_children)
        m_children = std::make_unique<ChildBook>(m_config.factories);
    m_children->load(stored);
    if (!m_directory)
        m_directory =
            std::make_shared<wire::ChildDirectory>(m_config.factories, m_config.logsPerCall);
    const auto cp = m_store.checkpoint();
    m_directory->reset(stored, cp                       ? std::optional(cp->number)
                               : m_config.fromBlock > 0 ? std::optional(m_config.fromBlock - 1)
                                                        : std::nullopt);
}

void Indexer::forgetChildrenAbove(qint64 fork)
{
    if (!m_children)
        return;
    if (fork < 0) {
        m_children->load({});
        m_directory->reset({}, m_config.fromBlock > 0 ? std::optional(m_config.fromBlock - 1)
                                                      : std::nullopt);
        return;
    }
    m_children->forgetAbove(std::uint64_t(fork));
    m_directory->forgetAbove(std::uint64_t(fork));
}

bool Indexer::admitChildren(VerifiedBatch& verified, const wire::WireBatch& batch,
                            std::uint64_t last, Acceptance& result)
{
    // Another writer (or a repair) may have stored or removed children since they were read.
    if (m_store.childCount() != m_children->storedRows())
        m_children->load(m_store.children());
    const ChildBook::Judgement j =
        m_children->judge(verified.logs, last, batch.fetchedChildren,
                          [this](const chain::Address& a) { return m_own.contains(a); });
    if (!j.unfetched.isEmpty()) {
        // Fetched before the child was known: fetched again with it, never committed without
        // its logs.
        for (const wire::ChildCreation& c : j.unfetched)
            m_directory->add(c.child, c.blockNumber);
        ++m_status.childRefetches;
        const wire::ChildCreation& c = j.unfetched.first();
        result.reason = QStringLiteral("blocks %1-%2 were fetched without child %3 of factory %4 "
                                       "(created at block %5)%6; fetching them again with it")
                            .arg(batch.fromBlock)
                            .arg(last)
                            .arg(c.child.toHex(), c.factory.toHex())
                            .arg(c.blockNumber)
                            .arg(j.unfetched.size() > 1
                                     ? QStringLiteral(" and %1 more").arg(j.unfetched.size() - 1)
                                     : QString());
        return false;
    }
    j.applyTo(verified);
    return true;
}

} // namespace forkscope::indexer
