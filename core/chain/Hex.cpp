#include "Hex.h"
#include "ChainParseError.h"

#include <QJsonDocument>

namespace forkscope::chain::hex {

namespace {
bool isHexDigit(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= '0' && u <= '9') || (u >= 'a' && u <= 'f') || (u >= 'A' && u <= 'F');
}

int hexValue(QChar c)
{
    const char16_t u = c.unicode();
    if (u >= '0' && u <= '9')
        return u - '0';
    if (u >= 'a' && u <= 'f')
        return u - 'a' + 10;
    return u - 'A' + 10;
}

constexpr std::uint64_t kMaxU63 = 0x7fffffffffffffffULL;
} // namespace

QString describe(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Undefined:
        return QStringLiteral("nothing (field missing)");
    case QJsonValue::Bool:
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    case QJsonValue::Double:
        return QStringLiteral("the JSON number %1").arg(v.toDouble(), 0, 'g', 17);
    case QJsonValue::String:
        return QLatin1Char('"') + v.toString() + QLatin1Char('"');
    case QJsonValue::Array:
        return QStringLiteral("a JSON array");
    case QJsonValue::Object:
        return QStringLiteral("a JSON object");
    }
    return QStringLiteral("an unknown value");
}

QString requireString(const QJsonValue& v, const QString& field, const char* expected)
{
    if (!v.isString())
        throw ChainParseError(field, describe(v), QString::fromLatin1(expected));
    return v.toString();
}

namespace {
QString quoted(const QString& s)
{
    return QLatin1Char('"') + s + QLatin1Char('"');
}
} // namespace

QString quantityDigits(const QString& s, const QString& field)
{
    // Error text is built only on failure: this runs for every field of every log.
    const auto shown = [&s] { return quoted(s); };
    if (s.startsWith(QLatin1Char('-')))
        throw ChainParseError(field, shown(), QStringLiteral("negative numbers are not allowed"));
    if (!s.startsWith(QLatin1String("0x")) && !s.startsWith(QLatin1String("0X")))
        throw ChainParseError(field, shown(), QStringLiteral("expected a 0x-prefixed hex number"));
    const QString digits = s.mid(2);
    if (digits.isEmpty())
        throw ChainParseError(field, shown(), QStringLiteral("expected hex digits after 0x"));
    for (QChar c : digits) {
        if (c == QLatin1Char('.'))
            throw ChainParseError(field, shown(),
                                  QStringLiteral("fractional numbers are not allowed"));
        if (!isHexDigit(c))
            throw ChainParseError(field, shown(), QStringLiteral("'%1' is not a hex digit").arg(c));
    }
    return digits;
}

std::uint64_t parseQuantityU63(const QString& s, const QString& field)
{
    const QString digits = quantityDigits(s, field);
    std::uint64_t n = 0;
    for (QChar c : digits) {
        if (n > (kMaxU63 >> 4))
            throw ChainParseError(field, QLatin1Char('"') + s + QLatin1Char('"'),
                                  QStringLiteral("number does not fit in 63 bits"));
        n = (n << 4) | std::uint64_t(hexValue(c));
    }
    if (n > kMaxU63)
        throw ChainParseError(field, QLatin1Char('"') + s + QLatin1Char('"'),
                              QStringLiteral("number does not fit in 63 bits"));
    return n;
}

std::uint64_t parseQuantityU63(const QJsonValue& v, const QString& field)
{
    return parseQuantityU63(requireString(v, field, "expected a 0x-prefixed hex string"), field);
}

std::uint64_t parseDecimalU63(const QString& s, const QString& field)
{
    const QString shown = quoted(s);
    if (s.isEmpty())
        throw ChainParseError(field, shown, QStringLiteral("expected a whole number"));
    if (s.startsWith(QLatin1Char('-')))
        throw ChainParseError(field, shown, QStringLiteral("negative numbers are not allowed"));
    std::uint64_t n = 0;
    for (QChar c : s) {
        if (c == QLatin1Char('.') || c == QLatin1Char('e') || c == QLatin1Char('E'))
            throw ChainParseError(field, shown,
                                  QStringLiteral("fractional numbers are not allowed"));
        if (c < QLatin1Char('0') || c > QLatin1Char('9'))
            throw ChainParseError(field, shown,
                                  QStringLiteral("'%1' is not a decimal digit").arg(c));
        const std::uint64_t d = c.unicode() - '0';
        if (n > (kMaxU63 - d) / 10)
            throw ChainParseError(field, shown, QStringLiteral("number does not fit in 63 bits"));
        n = n * 10 + d;
    }
    return n;
}

QByteArray parseData(const QString& s, const QString& field, int exactBytes)
{
    const auto shown = [&s] { return quoted(s); };
    if (!s.startsWith(QLatin1String("0x")) && !s.startsWith(QLatin1String("0X")))
        throw ChainParseError(field, shown(), QStringLiteral("expected 0x-prefixed hex bytes"));
    const qsizetype digits = s.size() - 2;
    const QChar* p = s.constData() + 2;
    for (qsizetype i = 0; i < digits; ++i)
        if (!isHexDigit(p[i]))
            throw ChainParseError(field, shown(),
                                  QStringLiteral("'%1' is not a hex digit").arg(p[i]));
    if (digits % 2 != 0)
        throw ChainParseError(field, shown(),
                              QStringLiteral("odd number of hex digits (%1)").arg(digits));
    if (exactBytes >= 0 && digits != 2 * exactBytes)
        throw ChainParseError(field, shown(),
                              QStringLiteral("expected %1 bytes (0x + %2 hex digits), found %3 "
                                             "hex digits")
                                  .arg(exactBytes)
                                  .arg(2 * exactBytes)
                                  .arg(digits));
    QByteArray out(digits / 2, Qt::Uninitialized);
    char* o = out.data();
    for (qsizetype i = 0; i < out.size(); ++i)
        o[i] = char(hexValue(p[2 * i]) << 4 | hexValue(p[2 * i + 1]));
    return out;
}

QByteArray parseData(const QJsonValue& v, const QString& field, int exactBytes)
{
    return parseData(requireString(v, field, "expected 0x-prefixed hex bytes"), field, exactBytes);
}

QString encodeQuantity(std::uint64_t n)
{
    return QStringLiteral("0x") + QString::number(n, 16);
}

QString encodeData(const QByteArray& bytes)
{
    return QString::fromLatin1(encodeDataLatin1(bytes));
}

QByteArray encodeDataLatin1(const QByteArray& bytes)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    QByteArray out(2 + 2 * bytes.size(), Qt::Uninitialized);
    char* o = out.data();
    o[0] = '0';
    o[1] = 'x';
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        o[2 + 2 * i] = kDigits[b >> 4];
        o[3 + 2 * i] = kDigits[b & 0xf];
    }
    return out;
}

} // namespace forkscope::chain::hex
