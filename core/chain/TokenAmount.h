#pragma once

#include <QMetaType>
#include <QString>

namespace forkscope::chain {

// An ERC-20 token's optional metadata, as its decimals() and symbol() answered. Amounts are
// stored and exported in raw units; these only change how the window shows them.
struct TokenInfo
{
    int decimals = 0; // 0..77: a u256 has at most 78 digits
    QString symbol;   // may be empty: the token has none, or it was not printable
    bool operator==(const TokenInfo&) const = default;
};

// "1,234.5" for raw "1234500000000000000000" at 18 decimals: the raw integer (an optional
// leading '-') scaled down, thousands grouped, trailing fractional zeros dropped. Text that
// is not a decimal integer comes back unchanged: a display never invents a number.
QString formatUnits(const QString& raw, int decimals);
// formatUnits plus the symbol: "1,234.5 DEMO".
QString formatTokenAmount(const QString& raw, const TokenInfo& token);

} // namespace forkscope::chain

Q_DECLARE_METATYPE(forkscope::chain::TokenInfo)
