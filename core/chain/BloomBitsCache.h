#pragma once

#include "Address.h"
#include "Hash32.h"
#include "LogEntry.h"
#include "LogsBloom.h"

#include <QHash>

namespace forkscope::chain {

// An item's bloom bits, remembered. Checking a log against its block's bloom hashes its
// address and each topic (Keccak-256), four hashes per Transfer; on a token's chain those
// are a few thousand distinct values repeated over every log (the 100k workload: 102,003
// logs, about 5,000 distinct items), and Qt's Keccak was about 0.2 s of a 100k sync's
// fetch threads (bench/README.md). Bounded: forgotten whole once `capacity` items are kept,
// so a chain of ever-new topics costs a lookup per item and nothing more. QHash's seed is
// random per process, so crafted topics cannot make its buckets collide. Not thread-safe:
// one per fetch thread.
class BloomBitsCache
{
public:
    explicit BloomBitsCache(qsizetype capacity = 16384) : m_capacity(capacity) {}

    bloom::Bits bitsOf(const Address& address) { return lookup(m_addresses, address); }
    bloom::Bits bitsOf(const Hash32& topic) { return lookup(m_topics, topic); }
    // Whether the log's address and every topic may be in `bloom` (see bloom::mayContain).
    bool mayContain(const LogsBloom& bloom, const LogEntry& log);

    qsizetype size() const { return m_addresses.size() + m_topics.size(); }

private:
    template <typename Key> bloom::Bits lookup(QHash<Key, bloom::Bits>& map, const Key& key)
    {
        if (const auto it = map.constFind(key); it != map.cend())
            return *it;
        if (size() >= m_capacity) {
            m_addresses.clear();
            m_topics.clear();
        }
        const auto& raw = key.bytes();
        return *map.insert(key,
                           bloom::bitsOf(QByteArrayView(reinterpret_cast<const char*>(raw.data()),
                                                        qsizetype(raw.size()))));
    }

    qsizetype m_capacity;
    QHash<Address, bloom::Bits> m_addresses;
    QHash<Hash32, bloom::Bits> m_topics;
};

} // namespace forkscope::chain
