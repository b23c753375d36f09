#include "OrderedTrie.h"
#include "Rlp.h"
#include "chain/Keccak.h"

#include <algorithm>

namespace forkscope::proof::trie {

namespace {
struct Entry
{
    QByteArray nibbles; // one 0..15 value per byte: the key, four bits at a time
    QByteArray value;
};

QByteArray toNibbles(const QByteArray& key)
{
    QByteArray out(key.size() * 2, Qt::Uninitialized);
    for (qsizetype i = 0; i < key.size(); ++i) {
        out[2 * i] = char(std::uint8_t(key[i]) >> 4);
        out[2 * i + 1] = char(std::uint8_t(key[i]) & 0x0f);
    }
    return out;
}

// Hex-prefix encoding (appendix C): the path of a leaf or an extension, packed two nibbles
// a byte, the first nibble of the first byte flagging "leaf" (2) and "odd length" (1).
QByteArray hexPrefix(QByteArrayView nibbles, bool leaf)
{
    const bool odd = nibbles.size() % 2 == 1;
    const int flag = (leaf ? 2 : 0) + (odd ? 1 : 0);
    QByteArray out;
    out.reserve(nibbles.size() / 2 + 1);
    qsizetype i = 0;
    if (odd)
        out.append(char(flag << 4 | nibbles[i++]));
    else
        out.append(char(flag << 4));
    for (; i < nibbles.size(); i += 2)
        out.append(char(nibbles[i] << 4 | nibbles[i + 1]));
    return out;
}

// How a parent holds a child: a node whose encoding is under 32 bytes is embedded as is,
// a larger one by the hash of its encoding.
QByteArray reference(const QByteArray& encodedNode)
{
    if (encodedNode.size() < 32)
        return encodedNode;
    return rlp::encodeBytes(chain::keccak256(encodedNode).toByteArray());
}

qsizetype commonPrefix(const QByteArray& a, const QByteArray& b, qsizetype from)
{
    qsizetype n = 0;
    while (from + n < a.size() && from + n < b.size() && a[from + n] == b[from + n])
        ++n;
    return n;
}

// The RLP of the node holding entries [begin, end) (sorted, distinct, non-empty values),
// whose keys all share their first `depth` nibbles.
QByteArray encodeNode(const QList<Entry>& entries, qsizetype begin, qsizetype end, qsizetype depth)
{
    if (end - begin == 1) {
        const Entry& e = entries[begin];
        return rlp::encodeList(
            {rlp::encodeBytes(hexPrefix(QByteArrayView(e.nibbles).sliced(depth), true)),
             rlp::encodeBytes(e.value)});
    }
    // Sorted keys: what the first and the last share, all share.
    const qsizetype shared = commonPrefix(entries[begin].nibbles, entries[end - 1].nibbles, depth);
    if (shared > 0) {
        const QByteArrayView path = QByteArrayView(entries[begin].nibbles).sliced(depth, shared);
        return rlp::encodeList({rlp::encodeBytes(hexPrefix(path, false)),
                                reference(encodeNode(entries, begin, end, depth + shared))});
    }
    QList<QByteArray> items;
    items.reserve(17);
    QByteArray value = rlp::encodeBytes({});
    // A key that ends here (a prefix of the others) is the branch's own value; sorting put
    // it first.
    if (entries[begin].nibbles.size() == depth)
        value = rlp::encodeBytes(entries[begin++].value);
    for (char nibble = 0; nibble < 16; ++nibble) {
        qsizetype stop = begin;
        while (stop < end && entries[stop].nibbles[depth] == nibble)
            ++stop;
        items.append(stop == begin ? rlp::encodeBytes({})
                                   : reference(encodeNode(entries, begin, stop, depth + 1)));
        begin = stop;
    }
    items.append(value);
    return rlp::encodeList(items);
}
} // namespace

chain::Hash32 emptyRoot()
{
    return chain::keccak256(rlp::encodeBytes({}));
}

chain::Hash32 rootOf(QList<std::pair<QByteArray, QByteArray>> entries)
{
    // Keys as unsigned bytes: QByteArray's own ordering would do, but say what is meant.
    const auto less = [](const auto& a, const auto& b) {
        return std::lexicographical_compare(
            a.first.begin(), a.first.end(), b.first.begin(), b.first.end(),
            [](char x, char y) { return std::uint8_t(x) < std::uint8_t(y); });
    };
    std::stable_sort(entries.begin(), entries.end(), less);
    QList<Entry> sorted;
    sorted.reserve(entries.size());
    for (qsizetype i = 0; i < entries.size(); ++i) {
        // Of equal keys, stable sorting leaves the last given last.
        if (i + 1 < entries.size() && entries[i + 1].first == entries[i].first)
            continue;
        if (!entries[i].second.isEmpty())
            sorted.append({toNibbles(entries[i].first), entries[i].second});
    }
    if (sorted.isEmpty())
        return emptyRoot();
    return chain::keccak256(encodeNode(sorted, 0, sorted.size(), 0));
}

chain::Hash32 orderedRoot(const QList<QByteArray>& values)
{
    QList<std::pair<QByteArray, QByteArray>> entries;
    entries.reserve(values.size());
    for (qsizetype i = 0; i < values.size(); ++i)
        entries.append({rlp::encodeUint(std::uint64_t(i)), values[i]});
    return rootOf(std::move(entries));
}

} // namespace forkscope::proof::trie
