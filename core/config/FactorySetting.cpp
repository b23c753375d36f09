#include "FactorySetting.h"
#include "SettingsValidation.h"
#include "chain/ChainParseError.h"

namespace forkscope::config {

wire::FactorySource factoryFromSetting(const QString& line)
{
    const QString t = line.trimmed();
    const qsizetype firstSpace = t.indexOf(QLatin1Char(' '));
    const qsizetype lastSpace = t.lastIndexOf(QLatin1Char(' '));
    if (firstSpace < 0 || lastSpace <= firstSpace)
        throw wire::FactorySourceError(
            QStringLiteral("factory \"%1\": give the address, the creation event's signature and "
                           "the child argument, separated by spaces")
                .arg(t));
    std::optional<chain::Address> address;
    try {
        address = chain::Address::fromHex(t.left(firstSpace), QStringLiteral("factory"));
    } catch (const chain::ChainParseError& e) {
        throw wire::FactorySourceError(e.message());
    }
    try {
        return wire::FactorySource::resolve(*address, t.mid(firstSpace + 1, lastSpace - firstSpace),
                                            t.mid(lastSpace + 1), nullptr);
    } catch (const wire::FactorySourceError& e) {
        // The settings have no flags: the message names the factory's fields instead.
        QString m = e.message();
        m.replace(QStringLiteral("--factory-event"), QStringLiteral("creation event"));
        m.replace(QStringLiteral("--child-arg"), QStringLiteral("child argument"));
        throw wire::FactorySourceError(QStringLiteral("factory %1: %2").arg(address->toHex(), m));
    }
}

std::optional<QString> validateFactory(const QString& line)
{
    try {
        factoryFromSetting(line);
        return std::nullopt;
    } catch (const wire::FactorySourceError& e) {
        return e.message();
    }
}

} // namespace forkscope::config
