#pragma once

#include "EngineConfig.h"
#include "EngineStatus.h"

#include <QObject>
#include <memory>

class QTimer;

namespace forkscope::lab {
class Devnet;
}
namespace forkscope::rpc {
class JsonRpcClient;
}
namespace forkscope::store {
class Database;
}

namespace forkscope::engine {

// The engine's worker object. Lives on its own QThread (see EngineHost): it starts the
// managed devnet if asked, opens the database on this thread (one connection per thread),
// and polls the node without ever blocking the GUI.
class EngineSession : public QObject
{
    Q_OBJECT
public:
    explicit EngineSession(EngineConfig config, QObject* parent = nullptr);
    ~EngineSession() override;

public slots:
    void start();
    void stop();

signals:
    void statusAvailable(const forkscope::engine::EngineStatus& status);
    void logMessage(const QString& level, const QString& text);

private:
    void poll();
    void publish();

    EngineConfig m_config;
    EngineStatus m_status;
    std::unique_ptr<lab::Devnet> m_devnet;
    std::unique_ptr<store::Database> m_db;
    rpc::JsonRpcClient* m_rpc = nullptr;
    QTimer* m_pollTimer = nullptr;
    bool m_pollInFlight = false;
};

} // namespace forkscope::engine
