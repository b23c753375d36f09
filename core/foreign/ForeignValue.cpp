#include "ForeignValue.h"

#include <QRegularExpression>

namespace forkscope::foreign {

namespace {

const QRegularExpression& decimalText()
{
    static const QRegularExpression re(QStringLiteral("^[0-9]{1,78}(\\.0*)?$"));
    return re;
}

const QRegularExpression& hexText()
{
    static const QRegularExpression re(QStringLiteral("^0[xX][0-9a-fA-F]+$"));
    return re;
}

// Hex text or bytes of exactly `size` bytes.
std::optional<QByteArray> fixedBytes(const ForeignCell& c, int size, const char* what, QString* why)
{
    QByteArray raw;
    if (c.type == ForeignCell::Type::Blob) {
        raw = c.bytes;
    } else if (c.type == ForeignCell::Type::Text) {
        const QString t = QString::fromUtf8(c.bytes).trimmed();
        if (!hexText().match(t).hasMatch() || t.size() % 2 != 0) {
            *why = QStringLiteral("is not %1 (0x hex text or bytes)").arg(QLatin1String(what));
            return std::nullopt;
        }
        raw = QByteArray::fromHex(t.mid(2).toLatin1());
    } else {
        *why = QStringLiteral("is not %1 (0x hex text or bytes)").arg(QLatin1String(what));
        return std::nullopt;
    }
    if (raw.size() != size) {
        *why = QStringLiteral("holds %1 bytes, not the %2 of %3")
                   .arg(raw.size())
                   .arg(size)
                   .arg(QLatin1String(what));
        return std::nullopt;
    }
    return raw;
}

} // namespace

QString shown(const ForeignCell& c)
{
    QString s;
    switch (c.type) {
    case ForeignCell::Type::Null:
        return QStringLiteral("NULL");
    case ForeignCell::Type::Integer:
        return QString::number(c.integer);
    case ForeignCell::Type::Blob:
        s = QStringLiteral("bytes 0x") + QString::fromLatin1(c.bytes.toHex());
        break;
    default:
        s = QStringLiteral("\"%1\"").arg(QString::fromUtf8(c.bytes));
    }
    // One line whatever the cell holds: a newline in a row must not forge the next line.
    for (QChar& ch : s)
        if (ch.category() == QChar::Other_Control)
            ch = QLatin1Char('?');
    return s.size() > 80 ? s.left(77) + QStringLiteral("...") : s;
}

std::optional<chain::U256> amountOf(const ForeignCell& c, QString* why)
{
    switch (c.type) {
    case ForeignCell::Type::Integer:
        if (c.integer < 0)
            break;
        return chain::U256(c.integer);
    case ForeignCell::Type::Blob:
        if (c.bytes.size() <= 32)
            return chain::u256::fromBigEndian(c.bytes, QStringLiteral("value"));
        *why = QStringLiteral("holds %1 bytes, more than a uint256's 32").arg(c.bytes.size());
        return std::nullopt;
    case ForeignCell::Type::Text: {
        const QString t = QString::fromUtf8(c.bytes).trimmed();
        try {
            if (decimalText().match(t).hasMatch()) {
                QString digits = t.section(QLatin1Char('.'), 0, 0);
                while (digits.size() > 1 && digits.startsWith(QLatin1Char('0')))
                    digits.remove(0, 1);
                return chain::u256::fromDecimal(digits, QStringLiteral("value"));
            }
            if (hexText().match(t).hasMatch()) {
                QString digits = t.mid(2);
                while (digits.size() > 1 && digits.startsWith(QLatin1Char('0')))
                    digits.remove(0, 1);
                if (digits.size() % 2 != 0)
                    digits.prepend(QLatin1Char('0'));
                if (digits.size() <= 64)
                    return chain::u256::fromBigEndian(QByteArray::fromHex(digits.toLatin1()),
                                                      QStringLiteral("value"));
            }
        } catch (const std::exception&) {
            break; // past 2^256
        }
        break;
    }
    default:
        break;
    }
    *why = QStringLiteral("is not an amount (a whole number: integer, decimal or numeric text, "
                          "0x hex, or big-endian bytes, below 2^256)");
    return std::nullopt;
}

std::optional<std::uint64_t> blockNumberOf(const ForeignCell& c, QString* why)
{
    QString amountWhy;
    const auto v = amountOf(c, &amountWhy);
    if (v && *v <= chain::U256((std::uint64_t(1) << 62)))
        return std::uint64_t(*v);
    *why = QStringLiteral("is not a block number or an index (a whole number below 2^62)");
    return std::nullopt;
}

std::optional<chain::Address> addressOf(const ForeignCell& c, QString* why)
{
    const auto raw = fixedBytes(c, 20, "an address", why);
    if (!raw)
        return std::nullopt;
    return chain::Address::fromBytes(*raw, QStringLiteral("address"));
}

std::optional<chain::Hash32> hashOf(const ForeignCell& c, QString* why)
{
    const auto raw = fixedBytes(c, 32, "a 32-byte hash", why);
    if (!raw)
        return std::nullopt;
    return chain::Hash32::fromBytes(*raw, QStringLiteral("hash"));
}

} // namespace forkscope::foreign
