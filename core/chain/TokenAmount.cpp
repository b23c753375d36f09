#include "TokenAmount.h"

namespace forkscope::chain {

namespace {
QString grouped(QStringView digits)
{
    QString out;
    out.reserve(digits.size() + digits.size() / 3);
    for (qsizetype i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += QLatin1Char(',');
        out += digits[i];
    }
    return out;
}
} // namespace

QString formatUnits(const QString& raw, int decimals)
{
    const bool negative = raw.startsWith(QLatin1Char('-'));
    QStringView digits = QStringView(raw).mid(negative ? 1 : 0);
    if (digits.isEmpty() || decimals < 0 || decimals > 77)
        return raw;
    for (QChar c : digits)
        if (c < QLatin1Char('0') || c > QLatin1Char('9'))
            return raw;
    while (digits.size() > 1 && digits.front() == QLatin1Char('0'))
        digits = digits.mid(1);
    // Pad so there is at least one digit before the point.
    const QString padded =
        QString(std::max<qsizetype>(0, decimals + 1 - digits.size()), QLatin1Char('0')) +
        digits.toString();
    const qsizetype point = padded.size() - decimals;
    QStringView fraction = QStringView(padded).mid(point);
    while (!fraction.isEmpty() && fraction.back() == QLatin1Char('0'))
        fraction.chop(1);
    QString out = grouped(QStringView(padded).left(point));
    if (!fraction.isEmpty())
        out += QLatin1Char('.') + fraction.toString();
    const bool zero = out == QLatin1String("0");
    return negative && !zero ? QLatin1Char('-') + out : out;
}

QString formatTokenAmount(const QString& raw, const TokenInfo& token)
{
    const QString amount = formatUnits(raw, token.decimals);
    return token.symbol.isEmpty() ? amount : amount + QLatin1Char(' ') + token.symbol;
}

} // namespace forkscope::chain
