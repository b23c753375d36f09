#include "ProviderLimit.h"
#include "rpc/RpcError.h"

#include <QRegularExpression>

namespace forkscope::wire {

namespace {
std::optional<std::uint64_t> number(const QString& text)
{
    bool ok = false;
    const QString t = text.trimmed().toLower();
    std::uint64_t v = 0;
    if (t.startsWith(QLatin1String("0x")))
        v = t.mid(2).toULongLong(&ok, 16);
    else if (t.endsWith(QLatin1Char('k')))
        v = t.chopped(1).remove(QLatin1Char(',')).toULongLong(&ok) * 1000;
    else
        v = QString(t).remove(QLatin1Char(',')).toULongLong(&ok);
    return ok ? std::optional<std::uint64_t>(v) : std::nullopt;
}
} // namespace

std::optional<ProviderLimit> parseProviderLimit(const QString& message)
{
    static const QRegularExpression kLimit(
        QStringLiteral("more than [\\d,]+ results|response size (exceeded|is larger)|"
                       "block range (is )?too (large|wide)|range is too large|"
                       "exceed(s|ed)? (the )?maximum block range|block range limit|"
                       "limited to a [\\d,]+k? (block )?range|too many (logs|results)|"
                       "query timeout exceeded|log limit"),
        QRegularExpression::CaseInsensitiveOption);
    if (!kLimit.match(message).hasMatch())
        return std::nullopt;
    ProviderLimit limit;
    static const QRegularExpression kRange(
        QStringLiteral("\\[\\s*(0x[0-9a-fA-F]+|\\d+)\\s*,\\s*(0x[0-9a-fA-F]+|\\d+)\\s*\\]"));
    if (const auto m = kRange.match(message); m.hasMatch()) {
        limit.suggestedFrom = number(m.captured(1));
        limit.suggestedTo = number(m.captured(2));
    }
    static const QRegularExpression kMax(
        QStringLiteral(
            "(?:maximum block range(?: is)?:?|max is|up to a|limited to a)\\s*([\\d,]+k?)"),
        QRegularExpression::CaseInsensitiveOption);
    if (const auto m = kMax.match(message); m.hasMatch())
        limit.maxBlocks = number(m.captured(1));
    return limit;
}

std::optional<AddressLimit> parseAddressLimit(const QString& message)
{
    static const QRegularExpression kAddresses(
        QStringLiteral("(?:exceeds? (?:the )?max(?:imum)?(?: of)?|too many|more than|at most|"
                       "limit(?:ed)? (?:of|to))\\s*([\\d,]+k?)?\\s*addresses"),
        QRegularExpression::CaseInsensitiveOption);
    const auto m = kAddresses.match(message);
    if (!m.hasMatch())
        return std::nullopt;
    AddressLimit limit;
    if (!m.captured(1).isEmpty())
        limit.maxAddresses = number(m.captured(1));
    return limit;
}

bool isRangeLimit(const rpc::RpcError& error)
{
    return error.kind == rpc::RpcError::Kind::TooLarge ||
           (error.kind == rpc::RpcError::Kind::Remote &&
            parseProviderLimit(error.message).has_value());
}

} // namespace forkscope::wire
