#include "Rlp.h"

namespace forkscope::proof::rlp {

namespace {
// The prefix of a string (offset 0x80) or a list (offset 0xc0) of `length` bytes: one byte
// up to 55, else one byte for the length's own length followed by the length, big-endian.
QByteArray prefix(std::uint8_t offset, qsizetype length)
{
    if (length <= 55)
        return QByteArray(1, char(offset + length));
    QByteArray len;
    for (auto n = std::uint64_t(length); n != 0; n >>= 8)
        len.prepend(char(n & 0xff));
    return char(offset + 55 + len.size()) + len;
}

QByteArrayView withoutLeadingZeros(QByteArrayView bytes)
{
    qsizetype i = 0;
    while (i < bytes.size() && bytes[i] == '\0')
        ++i;
    return bytes.sliced(i);
}
} // namespace

QByteArray encodeBytes(QByteArrayView bytes)
{
    if (bytes.size() == 1 && std::uint8_t(bytes[0]) < 0x80)
        return bytes.toByteArray();
    QByteArray out = prefix(0x80, bytes.size());
    out.append(bytes);
    return out;
}

QByteArray encodeUint(std::uint64_t value)
{
    QByteArray be;
    for (; value != 0; value >>= 8)
        be.prepend(char(value & 0xff));
    return encodeBytes(be);
}

QByteArray encodeUint(const chain::U256& value)
{
    return encodeUintBigEndian(chain::u256::toBigEndian32(value));
}

QByteArray encodeUintBigEndian(QByteArrayView bigEndian)
{
    return encodeBytes(withoutLeadingZeros(bigEndian));
}

QByteArray encodeList(const QList<QByteArray>& encodedItems)
{
    qsizetype length = 0;
    for (const QByteArray& item : encodedItems)
        length += item.size();
    QByteArray out = prefix(0xc0, length);
    out.reserve(out.size() + length);
    for (const QByteArray& item : encodedItems)
        out.append(item);
    return out;
}

QByteArray encodeListPayload(QByteArrayView payload)
{
    QByteArray out = prefix(0xc0, payload.size());
    out.append(payload);
    return out;
}

} // namespace forkscope::proof::rlp
