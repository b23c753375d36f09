#include "SettingsToConfig.h"
#include "config/FactorySetting.h"

namespace forkscope::engine {

namespace {
// The dialog validates before saving, so a value that does not parse here was edited by
// hand in the settings file: the default stays, rather than a zero nobody asked for.
quint64 number(const QString& text, quint64 fallback)
{
    bool ok = false;
    const quint64 v = text.trimmed().toULongLong(&ok);
    return ok ? v : fallback;
}
} // namespace

EngineConfig configFromSettings(const config::AppSettings& s, EngineConfig c)
{
    const QStringList endpoints = s.endpointList();
    if (!endpoints.isEmpty()) {
        c.managedDevnet = false;
        c.rpcUrl = QUrl(endpoints.first());
        c.nodes.clear();
        for (const QString& e : endpoints)
            c.nodes.append(QUrl(e));
        if (!s.environment.trimmed().isEmpty())
            c.indexer.environmentId = s.environment.trimmed();
    }
    c.contracts = s.contractList();
    c.factories.clear();
    for (const QString& line : s.factoryList()) {
        // As a number above: the dialog refuses a bad line, so one here was edited by hand;
        // it is left out rather than stopping the engine (the indexer names what it indexes).
        try {
            c.factories.append(config::factoryFromSetting(line));
        } catch (const wire::FactorySourceError&) {
        }
    }
    c.indexer.abiPath = s.abiPath.trimmed();
    c.indexer.fromBlock = number(s.startBlock, c.indexer.fromBlock);
    c.indexer.confirmations = number(s.confirmations, c.indexer.confirmations);
    c.indexer.batchSize = std::max<quint64>(1, number(s.batchSize, c.indexer.batchSize));
    c.indexer.maxReorgDepth =
        std::max<quint64>(1, number(s.maxReorgDepth, c.indexer.maxReorgDepth));
    c.indexer.orphanRetention = qint64(
        std::min<quint64>(1000000, number(s.orphanRetention, quint64(c.indexer.orphanRetention))));
    c.indexer.pollInterval = std::chrono::milliseconds(
        std::max<quint64>(50, number(s.pollMs, quint64(c.indexer.pollInterval.count()))));
    bool ok = false;
    const double ratio = s.readyRatio.trimmed().toDouble(&ok);
    if (ok && ratio > 0 && ratio <= 1)
        c.readyRatio = ratio;
    c.webhook = s.webhook.trimmed().isEmpty() ? QUrl() : QUrl(s.webhook.trimmed());
    return c;
}

} // namespace forkscope::engine
