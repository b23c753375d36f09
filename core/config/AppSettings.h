#pragma once

#include <QSettings>
#include <QString>

namespace forkscope::config {

// What the settings dialog edits, persisted with QSettings. Values are kept as the user
// typed them; SettingsValidation says whether they are usable.
struct AppSettings
{
    QString endpoints; // one URL per line; empty: a managed anvil lab
    QString contracts; // one 0x address per line
    // One factory per line: address, creation event signature, child argument
    // (FactorySetting.h); its children are indexed from their creation blocks.
    QString factories;
    QString abiPath;
    QString startBlock = QStringLiteral("0");
    QString confirmations = QStringLiteral("0");
    QString batchSize = QStringLiteral("200");
    QString maxReorgDepth = QStringLiteral("64");
    QString orphanRetention = QStringLiteral("10000"); // rollbacks whose branches are kept
    QString pollMs = QStringLiteral("1000");
    QString readyRatio = QStringLiteral("0.8");
    QString webhook;
    // The environment an external endpoint is indexed into; empty: "default". A different
    // contract set or start block needs its own (the indexer refuses to mix them). The
    // managed lab ignores it: each launch is a new chain, so a new environment.
    QString environment;

    static AppSettings load(QSettings& s);
    void save(QSettings& s) const;
    QStringList endpointList() const;
    QStringList contractList() const;
    QStringList factoryList() const;
    friend bool operator==(const AppSettings&, const AppSettings&) = default;
};

} // namespace forkscope::config
