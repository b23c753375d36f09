#include "AppSettings.h"

namespace forkscope::config {

namespace {
QStringList lines(const QString& text)
{
    QStringList out;
    for (const QString& l : text.split(QLatin1Char('\n')))
        if (!l.trimmed().isEmpty())
            out << l.trimmed();
    return out;
}
} // namespace

AppSettings AppSettings::load(QSettings& s)
{
    AppSettings d;
    AppSettings a;
    a.endpoints = s.value(QStringLiteral("indexer/endpoints"), d.endpoints).toString();
    a.contracts = s.value(QStringLiteral("indexer/contracts"), d.contracts).toString();
    a.factories = s.value(QStringLiteral("indexer/factories"), d.factories).toString();
    a.abiPath = s.value(QStringLiteral("indexer/abi"), d.abiPath).toString();
    a.startBlock = s.value(QStringLiteral("indexer/startBlock"), d.startBlock).toString();
    a.confirmations = s.value(QStringLiteral("indexer/confirmations"), d.confirmations).toString();
    a.batchSize = s.value(QStringLiteral("indexer/batchSize"), d.batchSize).toString();
    a.maxReorgDepth = s.value(QStringLiteral("indexer/maxReorgDepth"), d.maxReorgDepth).toString();
    a.orphanRetention =
        s.value(QStringLiteral("indexer/orphanRetention"), d.orphanRetention).toString();
    a.pollMs = s.value(QStringLiteral("indexer/pollMs"), d.pollMs).toString();
    a.readyRatio = s.value(QStringLiteral("health/readyRatio"), d.readyRatio).toString();
    a.webhook = s.value(QStringLiteral("outbox/webhook"), d.webhook).toString();
    a.environment = s.value(QStringLiteral("indexer/environment"), d.environment).toString();
    return a;
}

void AppSettings::save(QSettings& s) const
{
    s.setValue(QStringLiteral("indexer/endpoints"), endpoints);
    s.setValue(QStringLiteral("indexer/contracts"), contracts);
    s.setValue(QStringLiteral("indexer/factories"), factories);
    s.setValue(QStringLiteral("indexer/abi"), abiPath);
    s.setValue(QStringLiteral("indexer/startBlock"), startBlock);
    s.setValue(QStringLiteral("indexer/confirmations"), confirmations);
    s.setValue(QStringLiteral("indexer/batchSize"), batchSize);
    s.setValue(QStringLiteral("indexer/maxReorgDepth"), maxReorgDepth);
    s.setValue(QStringLiteral("indexer/orphanRetention"), orphanRetention);
    s.setValue(QStringLiteral("indexer/pollMs"), pollMs);
    s.setValue(QStringLiteral("health/readyRatio"), readyRatio);
    s.setValue(QStringLiteral("outbox/webhook"), webhook);
    s.setValue(QStringLiteral("indexer/environment"), environment);
}

QStringList AppSettings::endpointList() const
{
    return lines(endpoints);
}

QStringList AppSettings::contractList() const
{
    return lines(contracts);
}

QStringList AppSettings::factoryList() const
{
    return lines(factories);
}

} // namespace forkscope::config
