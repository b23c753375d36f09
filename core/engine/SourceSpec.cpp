#include "SourceSpec.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "wire/FactorySource.h"

namespace forkscope::engine {

namespace {

// The dialog names its fields, not the command line's flags.
QString fieldWords(QString message)
{
    static const QList<QPair<QString, QString>> kFields{
        {QStringLiteral("--factory-event"), QStringLiteral("the creation event")},
        {QStringLiteral("--child-arg"), QStringLiteral("the child argument")}};
    for (const auto& [flag, field] : kFields)
        message.replace(flag, field);
    if (!message.isEmpty())
        message[0] = message[0].toUpper();
    return message;
}

} // namespace

QString SourceSpec::check() const
{
    std::optional<chain::Address> a;
    try {
        a = chain::Address::fromHex(address.trimmed(), QStringLiteral("address"));
    } catch (const chain::ChainParseError& e) {
        return QStringLiteral("Address: %1").arg(e.message());
    }
    if (kind == Kind::Contract)
        return {};
    try {
        wire::FactorySource::resolve(*a, event.trimmed(), childArg.trimmed(), nullptr);
    } catch (const wire::FactorySourceError& e) {
        return fieldWords(e.message());
    }
    return {};
}

QString SourceSpec::normalizedAddress() const
{
    return chain::Address::fromHex(address.trimmed(), QStringLiteral("address")).toHex();
}

QStringList SourceSpec::indexArguments() const
{
    const chain::Address a = chain::Address::fromHex(address.trimmed(), QStringLiteral("address"));
    if (kind == Kind::Contract)
        return {QStringLiteral("--contract"), a.toHex()};
    return wire::FactorySource::resolve(a, event.trimmed(), childArg.trimmed(), nullptr)
        .arguments();
}

} // namespace forkscope::engine
