#include "ChildBook.h"
#include "VerifiedBatch.h"

namespace forkscope::indexer {

void ChildBook::Judgement::applyTo(VerifiedBatch& batch) const
{
    if (kept.size() != batch.logs.size()) {
        QList<abi::EventDecoding> decodings;
        if (!batch.decodings.isEmpty())
            for (qsizetype i : kept)
                decodings.append(batch.decodings.at(i));
        batch.logs = logs;
        batch.decodings = decodings;
    }
    batch.children = created;
}

void ChildBook::load(const QList<wire::ChildCreation>& stored)
{
    const QList<chain::Address> factories = wire::factoryAddresses(m_sources);
    m_children.clear();
    for (const wire::ChildCreation& c : stored)
        if (factories.contains(c.factory))
            m_children.insert(c.child, c);
    m_storedRows = stored.size();
}

void ChildBook::committed(const QList<wire::ChildCreation>& created)
{
    for (const wire::ChildCreation& c : created)
        if (!m_children.contains(c.child)) {
            m_children.insert(c.child, c);
            if (m_storedRows >= 0)
                ++m_storedRows;
        }
}

void ChildBook::forgetAbove(std::uint64_t block)
{
    m_children.removeIf([block](const auto& it) { return it.value().blockNumber > block; });
    m_storedRows = -1; // the rollback removed other factories' children too
}

} // namespace forkscope::indexer
