#include "U256.h"
#include "ChainParseError.h"
#include "Hex.h"

#include <QtEndian>
#include <cstring>

namespace forkscope::chain::u256 {

U256 fromQuantity(const QString& s, const QString& field)
{
    QString digits = hex::quantityDigits(s, field);
    int firstNonZero = 0;
    while (firstNonZero < digits.size() - 1 && digits.at(firstNonZero) == QLatin1Char('0'))
        ++firstNonZero;
    digits = digits.mid(firstNonZero);
    if (digits.size() > 64)
        throw ChainParseError(field, QLatin1Char('"') + s + QLatin1Char('"'),
                              QStringLiteral("number does not fit in 256 bits"));
    return U256("0x" + digits.toStdString());
}

U256 fromQuantity(const QJsonValue& v, const QString& field)
{
    return fromQuantity(hex::requireString(v, field, "expected a 0x-prefixed hex string"), field);
}

U256 fromBigEndian(const QByteArray& bytes, const QString& field)
{
    if (bytes.size() > 32)
        throw ChainParseError(field, hex::encodeData(bytes),
                              QStringLiteral("more than 32 bytes cannot be a uint256"));
    // Four 64-bit words, not a shift-and-or per byte: this runs once per Transfer decoded, on
    // the committing thread, and per byte it was a thousand instructions (bench/README.md).
    unsigned char word[32] = {};
    std::memcpy(word + 32 - bytes.size(), bytes.constData(), std::size_t(bytes.size()));
    U256 v = qFromBigEndian<quint64>(word);
    for (int at = 8; at < 32; at += 8) {
        v <<= 64;
        v |= qFromBigEndian<quint64>(word + at);
    }
    return v;
}

U256 fromDecimal(const QString& s, const QString& field)
{
    for (QChar c : s)
        if (c.unicode() > 0x7f) // named as it is, not as toLatin1() would mangle it
            throw ChainParseError(field, QLatin1Char('"') + s + QLatin1Char('"'),
                                  QStringLiteral("'%1' is not a decimal digit").arg(c));
    const QByteArray latin1 = s.toLatin1();
    return fromDecimal(std::string_view(latin1.constData(), std::size_t(latin1.size())), field);
}

U256 fromDecimal(std::string_view s, const QString& field)
{
    // The message is built only when there is one to give.
    const auto fail = [&](const QString& why) {
        throw ChainParseError(field,
                              QLatin1Char('"') +
                                  QString::fromLatin1(s.data(), qsizetype(s.size())) +
                                  QLatin1Char('"'),
                              why);
    };
    if (s.empty())
        fail(QStringLiteral("expected a base-10 number"));
    if (s.size() > 1 && s.front() == '0')
        fail(QStringLiteral("leading zeros are not allowed"));
    for (char c : s)
        if (c < '0' || c > '9')
            fail(QStringLiteral("'%1' is not a decimal digit").arg(QLatin1Char(c)));
    if (s.size() > 78)
        fail(QStringLiteral("number does not fit in 256 bits"));
    // Nineteen digits at a time fit in 64 bits; U256's checked arithmetic throws on overflow.
    constexpr std::uint64_t kTen19 = 10'000'000'000'000'000'000ull;
    U256 v = 0;
    std::size_t pos = 0;
    try {
        while (pos < s.size()) {
            const std::size_t n = std::min<std::size_t>(19, s.size() - pos);
            std::uint64_t chunk = 0, scale = 1;
            for (std::size_t i = 0; i < n; ++i) {
                chunk = chunk * 10 + std::uint64_t(s[pos + i] - '0');
                scale *= 10;
            }
            v = pos == 0 ? U256(chunk) : v * (n == 19 ? U256(kTen19) : U256(scale)) + chunk;
            pos += n;
        }
    } catch (const std::exception&) {
        fail(QStringLiteral("number does not fit in 256 bits"));
    }
    return v;
}

QString toDecimal(const U256& v)
{
    return QString::fromStdString(v.str());
}

QByteArray toBigEndian32(const U256& v)
{
    QByteArray out(32, '\0');
    U256 x = v;
    for (int i = 31; i >= 0 && x != 0; --i) {
        out[i] = char(static_cast<unsigned>(x & 0xff));
        x >>= 8;
    }
    return out;
}

} // namespace forkscope::chain::u256
