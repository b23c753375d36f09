#include "U256.h"
#include "ChainParseError.h"
#include "Hex.h"

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
    U256 v = 0;
    for (char c : bytes)
        v = (v << 8) | U256(static_cast<unsigned char>(c));
    return v;
}

U256 fromDecimal(const QString& s, const QString& field)
{
    const QString shown = QLatin1Char('"') + s + QLatin1Char('"'); // not auto: QStringBuilder
    if (s.isEmpty())
        throw ChainParseError(field, shown, QStringLiteral("expected a base-10 number"));
    if (s.size() > 1 && s.startsWith(QLatin1Char('0')))
        throw ChainParseError(field, shown, QStringLiteral("leading zeros are not allowed"));
    for (QChar c : s)
        if (c < QLatin1Char('0') || c > QLatin1Char('9'))
            throw ChainParseError(field, shown,
                                  QStringLiteral("'%1' is not a decimal digit").arg(c));
    if (s.size() > 78)
        throw ChainParseError(field, shown, QStringLiteral("number does not fit in 256 bits"));
    try {
        return U256(s.toStdString());
    } catch (const std::exception&) {
        throw ChainParseError(field, shown, QStringLiteral("number does not fit in 256 bits"));
    }
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
