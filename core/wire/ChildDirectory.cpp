#include "ChildDirectory.h"
#include "PartedLogReader.h"
#include "rpc/EthClient.h"

#include <QMutexLocker>
#include <algorithm>

namespace forkscope::wire {

void ChildDirectory::reset(const QList<ChildCreation>& stored,
                           std::optional<std::uint64_t> scannedThrough)
{
    const QList<chain::Address> factories = factoryAddresses(m_sources);
    QMutexLocker lock(&m_mutex);
    m_created.clear();
    for (const ChildCreation& c : stored)
        if (factories.contains(c.factory)) // another's: a factory added and still backfilled
            m_created.insert(c.child, c.blockNumber);
    m_scanned = scannedThrough;
}

void ChildDirectory::add(const chain::Address& child, std::uint64_t block)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_created.constFind(child);
    if (it == m_created.cend() || *it > block)
        m_created.insert(child, block);
}

void ChildDirectory::forgetAbove(std::uint64_t block)
{
    QMutexLocker lock(&m_mutex);
    m_created.removeIf([block](const auto& it) { return it.value() > block; });
    if (m_scanned && *m_scanned > block)
        m_scanned = block;
}

void ChildDirectory::scanThrough(rpc::EthClient& eth, std::uint64_t to)
{
    // One scan at a time: a fetch thread that waits here finds the blocks it needs scanned.
    QMutexLocker lock(&m_mutex);
    const std::uint64_t from = m_scanned ? *m_scanned + 1 : 0;
    if (from > to)
        return;
    PartedLogReader reader(eth, factoryAddresses(m_sources), m_logsPerCall);
    QList<chain::Hash32> topics;
    for (const FactorySource& s : m_sources)
        if (!topics.contains(s.topic0()))
            topics.append(s.topic0());
    reader.setTopics({topics});
    QList<chain::LogEntry> logs = reader.read(from, to);
    std::sort(logs.begin(), logs.end(),
              [](const auto& a, const auto& b) { return a.position() < b.position(); });
    for (const ChildCreation& c : creationsIn(logs, m_sources)) {
        const auto it = m_created.constFind(c.child);
        if (it == m_created.cend() || *it > c.blockNumber)
            m_created.insert(c.child, c.blockNumber);
    }
    m_scanned = to;
}

QList<chain::Address> ChildDirectory::createdThrough(std::uint64_t to) const
{
    QMutexLocker lock(&m_mutex);
    QList<chain::Address> out;
    out.reserve(m_created.size());
    for (auto it = m_created.cbegin(); it != m_created.cend(); ++it)
        if (it.value() <= to)
            out.append(it.key());
    return out;
}

qsizetype ChildDirectory::size() const
{
    QMutexLocker lock(&m_mutex);
    return m_created.size();
}

} // namespace forkscope::wire
