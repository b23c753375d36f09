#include "ChildBook.h"

namespace forkscope::indexer {

void ChildBook::load(const QList<wire::ChildCreation>& stored)
{
    m_children.clear();
    for (const wire::ChildCreation& c : stored)
        m_children.insert(c.child, c);
}

void ChildBook::committed(const QList<wire::ChildCreation>& created)
{
    for (const wire::ChildCreation& c : created)
        if (!m_children.contains(c.child))
            m_children.insert(c.child, c);
}

void ChildBook::forgetAbove(std::uint64_t block)
{
    m_children.removeIf([block](const auto& it) { return it.value().blockNumber > block; });
}

} // namespace forkscope::indexer
