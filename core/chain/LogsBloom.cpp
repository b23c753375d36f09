#include "LogsBloom.h"
#include "Keccak.h"

namespace forkscope::chain::bloom {

namespace {
template <typename F> void forEachBit(QByteArrayView item, F&& f)
{
    const Bits b = bitsOf(item);
    for (std::size_t i = 0; i < 3; ++i)
        f(int(b.byte[i]), b.mask[i]);
}
} // namespace

// The three (byte, mask) positions of an item: bits from the first three pairs of bytes of
// its hash, each taken modulo 2048, counted from the low-order end of the 256 bytes.
Bits bitsOf(QByteArrayView item)
{
    const Hash32 digest = keccak256(item);
    const auto& h = digest.bytes();
    Bits b;
    for (std::size_t i = 0; i < 3; ++i) {
        const int bit = ((int(h[2 * i]) << 8) | int(h[2 * i + 1])) & 2047;
        b.byte[i] = std::uint8_t(255 - bit / 8);
        b.mask[i] = std::uint8_t(1u << (bit % 8));
    }
    return b;
}

bool mayContain(const LogsBloom& bloom, const Bits& bits)
{
    for (std::size_t i = 0; i < 3; ++i)
        if ((bloom.bytes()[bits.byte[i]] & bits.mask[i]) == 0)
            return false;
    return true;
}

void add(LogsBloom& bloom, QByteArrayView item)
{
    QByteArray raw = bloom.toByteArray();
    forEachBit(item, [&](int byte, std::uint8_t mask) {
        raw[byte] = char(std::uint8_t(raw[byte]) | mask);
    });
    bloom = LogsBloom::fromBytes(raw, QStringLiteral("logsBloom"));
}

bool mayContain(const LogsBloom& bloom, QByteArrayView item)
{
    return mayContain(bloom, bitsOf(item));
}

LogsBloom of(const QList<LogEntry>& logs)
{
    QByteArray raw(256, '\0');
    const auto set = [&](QByteArrayView item) {
        forEachBit(item, [&](int byte, std::uint8_t mask) {
            raw[byte] = char(std::uint8_t(raw[byte]) | mask);
        });
    };
    for (const LogEntry& log : logs) {
        set(log.address.toByteArray());
        for (const Hash32& t : log.topics)
            set(t.toByteArray());
    }
    return LogsBloom::fromBytes(raw, QStringLiteral("logsBloom"));
}

} // namespace forkscope::chain::bloom
