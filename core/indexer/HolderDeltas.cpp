#include "HolderDeltas.h"

#include <QtEndian>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

namespace forkscope::indexer {

bool holderKeyLess(const HolderKey& a, const HolderKey& b)
{
    if (const int c =
            std::memcmp(a.contract.bytes().data(), b.contract.bytes().data(), chain::Address::size))
        return c < 0;
    return std::memcmp(a.holder.bytes().data(), b.holder.bytes().data(), chain::Address::size) < 0;
}

HolderDeltas::HolderDeltas(std::initializer_list<std::pair<HolderKey, HolderDelta>> entries)
{
    reserve(entries.size());
    for (const auto& [key, delta] : entries)
        add(key, delta);
    merge();
}

void HolderDeltas::reserve(std::size_t sides)
{
    m_keys.reserve(sides);
    m_deltas.reserve(sides);
    m_order.reserve(sides);
}

void HolderDeltas::add(const HolderKey& key, const HolderDelta& delta)
{
    m_keys.push_back(key);
    m_deltas.push_back(delta);
    m_merged = false;
}

namespace {

// A key as five big-endian words: compared as integers, in memcmp's order, without a call
// per comparison or a jump into the key array (the sort's cost when it compared the keys in
// place: a twelfth of a commit).
struct SortKey
{
    std::array<std::uint64_t, 5> words;
    std::uint32_t index;
};

SortKey sortKey(const HolderKey& key, std::uint32_t index)
{
    std::array<std::uint8_t, 40> raw;
    std::memcpy(raw.data(), key.contract.bytes().data(), 20);
    std::memcpy(raw.data() + 20, key.holder.bytes().data(), 20);
    SortKey k{{}, index};
    // One load and byte swap per word, not a byte at a time (merge() of 20,000 sides 2.19 ->
    // 1.94 ms; the sort itself is the rest).
    for (std::size_t w = 0; w < k.words.size(); ++w)
        k.words[w] = qFromBigEndian<std::uint64_t>(raw.data() + w * 8);
    return k;
}

} // namespace

void HolderDeltas::merge()
{
    if (m_merged)
        return;
    // Positions are sorted with their keys, not the entries: a key and a 257-bit amount are a
    // hundred bytes to move at every swap. Equal keys end up adjacent, and each holder's sides
    // are summed into its first one, in place.
    std::vector<SortKey> sorted;
    sorted.reserve(m_keys.size());
    for (std::size_t i = 0; i < m_keys.size(); ++i)
        sorted.push_back(sortKey(m_keys[i], std::uint32_t(i)));
    std::sort(sorted.begin(), sorted.end(), [](const SortKey& a, const SortKey& b) {
        // Word by word: std::array's operator< goes through a three-way compare.
        for (std::size_t w = 0; w < a.words.size(); ++w)
            if (a.words[w] != b.words[w])
                return a.words[w] < b.words[w];
        return false;
    });
    m_order.clear();
    for (std::size_t at = 0; at < sorted.size(); ++at) {
        const std::uint32_t i = sorted[at].index;
        if (at > 0 && sorted[at - 1].words == sorted[at].words) {
            HolderDelta& first = m_deltas[m_order.back()];
            first.amount += m_deltas[i].amount;
            first.sides += m_deltas[i].sides;
            first.lastBlock = std::max(first.lastBlock, m_deltas[i].lastBlock);
            m_deltas[i] = {}; // summed: a later merge must not count it again
        } else {
            m_order.push_back(i);
        }
    }
    m_merged = true;
}

} // namespace forkscope::indexer
