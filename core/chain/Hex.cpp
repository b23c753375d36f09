#include "Hex.h"
#include "ChainParseError.h"

#include <QJsonDocument>
#include <algorithm>

namespace forkscope::chain::hex {

namespace {
bool isHexDigit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c - 'A' + 10;
}

// The character at byte `i` of UTF-8 text, for "'x' is not a hex digit".
QChar charAt(std::string_view s, std::size_t i)
{
    const auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80)
        return QChar(char16_t(b));
    const QString rest =
        QString::fromUtf8(s.data() + i, qsizetype(std::min<std::size_t>(4, s.size() - i)));
    return rest.isEmpty() ? QChar::ReplacementCharacter : rest.at(0);
}

QString quotedUtf8(std::string_view s)
{
    return QLatin1Char('"') + QString::fromUtf8(s.data(), qsizetype(s.size())) + QLatin1Char('"');
}

std::string_view view(const QByteArray& utf8)
{
    return {utf8.constData(), std::size_t(utf8.size())};
}

bool hasPrefix(std::string_view s)
{
    return s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
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

std::string_view quantityDigits(std::string_view s, const FieldPath& field)
{
    // Error text is built only on failure: this runs for every field of every log.
    const auto fail = [&](const QString& why) {
        throw ChainParseError(field.toString(), quotedUtf8(s), why);
    };
    if (!s.empty() && s[0] == '-')
        fail(QStringLiteral("negative numbers are not allowed"));
    if (!hasPrefix(s))
        fail(QStringLiteral("expected a 0x-prefixed hex number"));
    const std::string_view digits = s.substr(2);
    if (digits.empty())
        fail(QStringLiteral("expected hex digits after 0x"));
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (digits[i] == '.')
            fail(QStringLiteral("fractional numbers are not allowed"));
        if (!isHexDigit(digits[i]))
            fail(QStringLiteral("'%1' is not a hex digit").arg(charAt(digits, i)));
    }
    return digits;
}

QString quantityDigits(const QString& s, const QString& field)
{
    const QByteArray utf8 = s.toUtf8();
    return QString::fromLatin1(quantityDigits(view(utf8), FieldPath(field)));
}

std::uint64_t parseQuantityU63(std::string_view s, const FieldPath& field)
{
    const std::string_view digits = quantityDigits(s, field);
    std::uint64_t n = 0;
    for (char c : digits) {
        if (n > (kMaxU63 >> 4))
            throw ChainParseError(field.toString(), quotedUtf8(s),
                                  QStringLiteral("number does not fit in 63 bits"));
        n = (n << 4) | std::uint64_t(hexValue(c));
    }
    if (n > kMaxU63)
        throw ChainParseError(field.toString(), quotedUtf8(s),
                              QStringLiteral("number does not fit in 63 bits"));
    return n;
}

std::uint64_t parseQuantityU63(const QString& s, const QString& field)
{
    const QByteArray utf8 = s.toUtf8();
    return parseQuantityU63(view(utf8), FieldPath(field));
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

namespace {
// The checks of parseData, in its order; returns the number of bytes.
std::size_t checkData(std::string_view s, const FieldPath& field, int exactBytes)
{
    const auto fail = [&](const QString& why) {
        throw ChainParseError(field.toString(), quotedUtf8(s), why);
    };
    if (!hasPrefix(s))
        fail(QStringLiteral("expected 0x-prefixed hex bytes"));
    const std::string_view p = s.substr(2);
    for (std::size_t i = 0; i < p.size(); ++i)
        if (!isHexDigit(p[i]))
            fail(QStringLiteral("'%1' is not a hex digit").arg(charAt(p, i)));
    const auto digits = qsizetype(p.size());
    if (digits % 2 != 0)
        fail(QStringLiteral("odd number of hex digits (%1)").arg(digits));
    if (exactBytes >= 0 && digits != 2 * qsizetype(exactBytes))
        fail(QStringLiteral("expected %1 bytes (0x + %2 hex digits), found %3 hex digits")
                 .arg(exactBytes)
                 .arg(2 * exactBytes)
                 .arg(digits));
    return p.size() / 2;
}

void decodeDigits(const char* p, std::size_t bytes, std::uint8_t* out)
{
    for (std::size_t i = 0; i < bytes; ++i)
        out[i] = std::uint8_t(hexValue(p[2 * i]) << 4 | hexValue(p[2 * i + 1]));
}
} // namespace

QByteArray parseData(std::string_view s, const FieldPath& field, int exactBytes)
{
    const std::size_t bytes = checkData(s, field, exactBytes);
    QByteArray out(qsizetype(bytes), Qt::Uninitialized);
    decodeDigits(s.data() + 2, bytes, reinterpret_cast<std::uint8_t*>(out.data()));
    return out;
}

void parseFixed(std::string_view s, const FieldPath& field, std::uint8_t* out, int n)
{
    decodeDigits(s.data() + 2, checkData(s, field, n), out);
}

QByteArray parseData(const QString& s, const QString& field, int exactBytes)
{
    const QByteArray utf8 = s.toUtf8();
    return parseData(view(utf8), FieldPath(field), exactBytes);
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

bool isEncodingOf(QStringView text, const std::uint8_t* bytes, qsizetype n)
{
    static constexpr char16_t kDigits[] = u"0123456789abcdef";
    if (text.size() != 2 + 2 * n || text[0] != u'0' || text[1] != u'x')
        return false;
    const char16_t* t = text.utf16() + 2;
    for (qsizetype i = 0; i < n; ++i)
        if (t[2 * i] != kDigits[bytes[i] >> 4] || t[2 * i + 1] != kDigits[bytes[i] & 0xf])
            return false;
    return true;
}

} // namespace forkscope::chain::hex
