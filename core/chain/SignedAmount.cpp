#include "SignedAmount.h"

#include <algorithm>

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
    std::string_view s(utf8, std::size_t(std::max(length, 0)));
    const bool negative = !s.empty() && s.front() == '-';
    if (negative)
        s.remove_prefix(1);
    const SignedAmount v(u256::fromDecimal(s, field));
    return negative ? SignedAmount(-v) : v;
}

} // namespace forkscope::chain::amount
