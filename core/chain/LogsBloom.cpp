#include "LogsBloom.h"
#include "Keccak.h"

namespace forkscope::chain::bloom {

namespace {
// The three (byte, mask) positions of an item: bits from the first three pairs of bytes of
// its hash, each taken modulo 2048, counted from the low-order end of the 256 bytes.
template <typename F> void forEachBit(QByteArrayView item, F&& f)
{
    const Hash32 digest = keccak256(item);
    const auto& h = digest.bytes();
    for (int i = 0; i < 6; i += 2) {
        const int bit = ((int(h[std::size_t(i)]) << 8) | int(h[std::size_t(i + 1)])) & 2047;
        f(255 - bit / 8, std::uint8_t(1u << (bit % 8)));
    }
}
} // namespace

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
    bool all = true;
    forEachBit(item, [&](int byte, std::uint8_t mask) {
        if ((bloom.bytes()[std::size_t(byte)] & mask) == 0)
            all = false;
    });
    return all;
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
