#include "SignedAmount.h"

namespace forkscope::chain::amount {

QString toString(const SignedAmount& a)
{
    return QString::fromStdString(a.str());
}

SignedAmount fromString(const QString& s, const QString& field)
{
    const bool negative = s.startsWith(QLatin1Char('-'));
    const SignedAmount v(u256::fromDecimal(negative ? s.mid(1) : s, field));
    return negative ? SignedAmount(-v) : v;
}

SignedAmount fromString(const char* utf8, int length, const QString& field)
{
    return fromString(QString::fromUtf8(utf8, length), field);
}

} // namespace forkscope::chain::amount
