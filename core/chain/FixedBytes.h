#pragma once

#include "ChainParseError.h"
#include "Hex.h"

#include <QByteArray>
#include <QHashFunctions>
#include <QJsonValue>
#include <QMetaType>
#include <QString>
#include <algorithm>
#include <array>
#include <compare>
#include <cstdint>
#include <span>

namespace forkscope::chain {

// A byte string of exactly N bytes (hashes, addresses). Parsing is strict; the canonical
// text form, used in the database and in every report, is lowercase 0x-hex.
template <std::size_t N> class FixedBytes
{
public:
    static constexpr std::size_t size = N;

    FixedBytes() { m_bytes.fill(0); }

    static FixedBytes fromBytes(const QByteArray& raw, const QString& field)
    {
        if (raw.size() != qsizetype(N))
            throw ChainParseError(
                field, hex::encodeData(raw),
                QStringLiteral("expected %1 bytes, found %2").arg(N).arg(raw.size()));
        FixedBytes b;
        std::copy(raw.begin(), raw.end(), reinterpret_cast<char*>(b.m_bytes.data()));
        return b;
    }
    // Exactly N bytes the caller already has (a slice of a checked value): no allocation.
    static FixedBytes fromRaw(std::span<const std::uint8_t, N> raw)
    {
        FixedBytes b;
        std::copy(raw.begin(), raw.end(), b.m_bytes.begin());
        return b;
    }
    static FixedBytes fromHex(const QString& s, const QString& field)
    {
        return fromBytes(hex::parseData(s, field, int(N)), field);
    }
    static FixedBytes fromJson(const QJsonValue& v, const QString& field)
    {
        return fromBytes(hex::parseData(v, field, int(N)), field);
    }
    // The UTF-8 text of a JSON string (the simdjson readers): no allocation.
    static FixedBytes fromHex(std::string_view s, const FieldPath& field)
    {
        FixedBytes b;
        hex::parseFixed(s, field, b.m_bytes.data(), int(N));
        return b;
    }

    QString toHex() const { return hex::encodeData(toByteArray()); }
    QByteArray toHexLatin1() const { return hex::encodeDataLatin1(toByteArray()); }
    // Whether `text` is exactly toHex(), without building it.
    bool isHexOf(QStringView text) const { return hex::isEncodingOf(text, m_bytes.data(), N); }
    QByteArray toByteArray() const
    {
        return QByteArray(reinterpret_cast<const char*>(m_bytes.data()), qsizetype(N));
    }
    const std::array<std::uint8_t, N>& bytes() const { return m_bytes; }
    bool isZero() const
    {
        return std::all_of(m_bytes.begin(), m_bytes.end(), [](std::uint8_t b) { return b == 0; });
    }

    friend auto operator<=>(const FixedBytes&, const FixedBytes&) = default;
    friend bool operator==(const FixedBytes&, const FixedBytes&) = default;
    friend size_t qHash(const FixedBytes& b, size_t seed = 0)
    {
        return qHashBits(b.m_bytes.data(), N, seed);
    }

private:
    std::array<std::uint8_t, N> m_bytes;
};

} // namespace forkscope::chain
