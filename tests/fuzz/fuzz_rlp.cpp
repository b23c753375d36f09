// RLP and the ordered trie, the encodings the receipts proof hashes (proof/Rlp,
// proof/OrderedTrie). Forkscope never reads RLP a node sent, so the property is the encoder's:
// the input describes a tree of byte strings, lists and integers, which is encoded and then
// read back by a strict decoder written here from the Yellow Paper (appendix B): it must give
// the same tree, in the canonical (shortest) form. The trie root must not depend on the
// order its entries are given in, nor on entries with an empty value, and a key given twice
// keeps its last value.

#include "FuzzSupport.h"
#include "RlpReader.h"
#include "chain/U256.h"
#include "proof/OrderedTrie.h"
#include "proof/Rlp.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>

namespace rlp = forkscope::proof::rlp;
namespace trie = forkscope::proof::trie;
namespace chain = forkscope::chain;
using forkscope::fuzz::Item;
using forkscope::fuzz::readRlp;

namespace {

QByteArray take(FuzzedDataProvider& in, std::size_t n)
{
    const std::string s = in.ConsumeBytesAsString(n);
    return QByteArray(s.data(), qsizetype(s.size()));
}

// A byte string of a length near one of RLP's boundaries (1, 55/56, 255/256), or any.
QByteArray consumeString(FuzzedDataProvider& in)
{
    static constexpr std::size_t kSizes[] = {0, 1, 2, 54, 55, 56, 57, 255, 256, 1024};
    const std::size_t n = in.ConsumeBool() ? in.PickValueInArray(kSizes)
                                           : in.ConsumeIntegralInRange<std::size_t>(0, 64);
    QByteArray s = take(in, n);
    if (s.size() < qsizetype(n))
        s.append(QByteArray(qsizetype(n) - s.size(), char(n & 0x7f)));
    return s;
}

// Builds an item from the input and its encoding with the encoder under test; integers are
// encoded as integers and expected back as their minimal big-endian bytes.
Item consumeItem(FuzzedDataProvider& in, int depth, QByteArray* encoded)
{
    const int kind = depth > 6 ? in.ConsumeIntegralInRange(0, 2) : in.ConsumeIntegralInRange(0, 4);
    switch (kind) {
    case 0: {
        const QByteArray s = consumeString(in);
        *encoded = rlp::encodeBytes(s);
        return {s};
    }
    case 1: {
        const auto n = in.ConsumeIntegral<std::uint64_t>() >> in.ConsumeIntegralInRange(0, 63);
        *encoded = rlp::encodeUint(n);
        QByteArray be;
        for (auto x = n; x != 0; x >>= 8)
            be.prepend(char(x & 0xff));
        return {be};
    }
    case 2: {
        // A 256-bit integer, and the same as big-endian bytes with leading zeros.
        QByteArray be = take(in, in.ConsumeIntegralInRange(0, 32));
        const chain::U256 n = chain::u256::fromBigEndian(be, QStringLiteral("n"));
        *encoded = rlp::encodeUint(n);
        const QByteArray viaBytes = rlp::encodeUintBigEndian(QByteArray(QByteArray(3, '\0') + be));
        FUZZ_CHECK(*encoded == viaBytes,
                   QString::fromLatin1(encoded->toHex() + " vs " + viaBytes.toHex()));
        while (!be.isEmpty() && be.front() == '\0')
            be.remove(0, 1);
        return {be};
    }
    default: {
        std::vector<Item> items;
        QList<QByteArray> parts;
        const int n = in.ConsumeIntegralInRange(0, 6);
        for (int i = 0; i < n && in.remaining_bytes() > 0; ++i) {
            QByteArray part;
            items.push_back(consumeItem(in, depth + 1, &part));
            parts.append(part);
        }
        // Both list encoders, which must agree.
        *encoded = rlp::encodeList(parts);
        const QByteArray viaPayload = rlp::encodeListPayload(parts.join());
        FUZZ_CHECK(*encoded == viaPayload, QString::fromLatin1(encoded->toHex()));
        return {items};
    }
    }
}

void checkTrie(FuzzedDataProvider& in)
{
    QList<std::pair<QByteArray, QByteArray>> entries;
    const int n = in.ConsumeIntegralInRange(0, 24);
    for (int i = 0; i < n; ++i) {
        // Short keys from a small alphabet, so they share prefixes and repeat.
        QByteArray key = take(in, in.ConsumeIntegralInRange(0, 3));
        for (char& c : key)
            c = char(c & 0x13);
        entries.append({key, take(in, in.ConsumeIntegralInRange(0, 40))});
    }
    const chain::Hash32 root = trie::rootOf(entries);
    // The last value of each key, without the empty ones: the same trie.
    QList<std::pair<QByteArray, QByteArray>> last;
    for (qsizetype i = entries.size() - 1; i >= 0; --i)
        if (std::none_of(last.begin(), last.end(),
                         [&](const auto& e) { return e.first == entries[i].first; }))
            last.append(entries[i]);
    last.removeIf([](const auto& e) { return e.second.isEmpty(); });
    FUZZ_CHECK(trie::rootOf(last) == root, root.toHex());
    std::reverse(last.begin(), last.end());
    FUZZ_CHECK(trie::rootOf(last) == root, root.toHex());
    if (last.isEmpty())
        FUZZ_CHECK(root == trie::emptyRoot(), root.toHex());

    QList<QByteArray> values;
    QList<std::pair<QByteArray, QByteArray>> numbered;
    for (const auto& e : std::as_const(entries)) {
        numbered.append({rlp::encodeUint(std::uint64_t(values.size())), e.second});
        values.append(e.second);
    }
    FUZZ_CHECK(trie::orderedRoot(values) == trie::rootOf(numbered), QString::number(values.size()));
}

} // namespace

FUZZ_INIT

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    FuzzedDataProvider in(data, size);
    QByteArray encoded;
    const Item item = consumeItem(in, 0, &encoded);
    qsizetype pos = 0;
    const std::optional<Item> back = readRlp(encoded, pos);
    FUZZ_CHECK(back && pos == encoded.size(),
               QStringLiteral("not one canonical item: ") + QString::fromLatin1(encoded.toHex()));
    FUZZ_CHECK(*back == item, QString::fromLatin1(encoded.toHex()));
    checkTrie(in);
    return 0;
}
