#include "CommandLine.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"

#include <cstdio>

namespace forkscope::app {

void printError(const QString& message)
{
    std::fprintf(stderr, "forkscope: %s\n", qPrintable(message));
    std::fflush(stderr);
}

QString findSubcommand(const QStringList& arguments)
{
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        const QString& a = arguments.at(i);
        if (!a.startsWith(QLatin1Char('-')))
            return a;
        // Options of the GUI that take a value: skip the value.
        if (a == QLatin1String("--db") || a == QLatin1String("--rpc") ||
            a == QLatin1String("--env") || a == QLatin1String("--screenshot") ||
            a == QLatin1String("--screenshot-after-ms") ||
            a == QLatin1String("--screenshot-scene") || a == QLatin1String("--demo-transfers"))
            ++i;
    }
    return {};
}

QString repeatedOption(const QCommandLineParser& parser,
                       const QList<const QCommandLineOption*>& options)
{
    for (const QCommandLineOption* o : options) {
        const QStringList given = parser.values(*o);
        if (given.size() > 1)
            return QStringLiteral("--%1 given %2 times (%3); give it once")
                .arg(o->names().constLast())
                .arg(given.size())
                .arg(given.join(QStringLiteral(", ")));
    }
    return {};
}

quint16 portValue(const QString& flag, const QString& text)
{
    const auto n = chain::hex::parseDecimalU63(text, flag);
    if (n == 0 || n > 65535)
        throw chain::ChainParseError(flag, text, QStringLiteral("expected a port from 1 to 65535"));
    return quint16(n);
}

std::uint64_t blockNumberValue(const QString& flag, const QString& text)
{
    constexpr std::uint64_t kMax = std::uint64_t(1) << 62;
    const std::uint64_t n = chain::hex::parseDecimalU63(text, flag);
    if (n > kMax)
        throw chain::ChainParseError(
            flag, text, QStringLiteral("expected a block number from 0 to %1 (2^62)").arg(kMax));
    return n;
}

} // namespace forkscope::app
