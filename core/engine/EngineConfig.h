#pragma once

#include <QMetaType>
#include <QString>
#include <QUrl>
#include <chrono>

namespace forkscope::engine {

// What the engine should connect to. The app's embedded default is a managed anvil and a
// SQLite file in the user's data directory; pointing at another endpoint is a settings
// change (managedDevnet = false, rpcUrl = ...).
struct EngineConfig
{
    bool managedDevnet = true;
    QUrl rpcUrl;     // used when managedDevnet is false
    QString dbPath;  // SQLite file; its directory is created if missing
    std::chrono::milliseconds pollInterval{1000};
    std::chrono::milliseconds rpcTimeout{5000};
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::EngineConfig)
