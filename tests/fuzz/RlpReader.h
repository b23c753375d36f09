#pragma once

// A strict RLP reader (Yellow Paper appendix B) for the fuzz targets to read back what the
// encoder under test wrote: it accepts only the canonical (shortest) encoding.

#include <QByteArray>
#include <QByteArrayView>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace forkscope::fuzz {

// A byte string or a list of items.
struct Item
{
    std::variant<QByteArray, std::vector<Item>> v;
    friend bool operator==(const Item&, const Item&) = default;
    const QByteArray* bytes() const { return std::get_if<QByteArray>(&v); }
    const std::vector<Item>* list() const { return std::get_if<std::vector<Item>>(&v); }
};

// The strict reader: one item at `pos`, or nothing for a non-canonical or short encoding.
inline std::optional<Item> readRlp(QByteArrayView in, qsizetype& pos)
{
    if (pos >= in.size())
        return std::nullopt;
    const std::uint8_t b = std::uint8_t(in[pos]);
    if (b < 0x80) {
        ++pos;
        return Item{QByteArray(1, char(b))};
    }
    const bool list = b >= 0xc0;
    const std::uint8_t offset = list ? 0xc0 : 0x80;
    qsizetype length = 0;
    qsizetype start = pos + 1;
    if (b - offset <= 55) {
        length = b - offset;
    } else {
        const int lengthBytes = b - offset - 55;
        if (lengthBytes > 7 || start + lengthBytes > in.size() || in[start] == '\0')
            return std::nullopt; // longer than any buffer, short, or with a leading zero
        for (int i = 0; i < lengthBytes; ++i)
            length = (length << 8) | std::uint8_t(in[start + i]);
        start += lengthBytes;
        if (length <= 55)
            return std::nullopt; // fits the short form
    }
    if (length > in.size() - start)
        return std::nullopt;
    const QByteArrayView payload = in.sliced(start, length);
    pos = start + length;
    if (!list) {
        if (length == 1 && std::uint8_t(payload[0]) < 0x80)
            return std::nullopt; // a single low byte is its own encoding
        return Item{payload.toByteArray()};
    }
    std::vector<Item> items;
    qsizetype p = 0;
    while (p < payload.size()) {
        const auto item = readRlp(payload, p);
        if (!item)
            return std::nullopt;
        items.push_back(*item);
    }
    return Item{items};
}

// The whole of `in` as one item, or nothing.
inline std::optional<Item> readRlp(QByteArrayView in)
{
    qsizetype pos = 0;
    auto item = readRlp(in, pos);
    if (!item || pos != in.size())
        return std::nullopt;
    return item;
}

} // namespace forkscope::fuzz
