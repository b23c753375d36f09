#pragma once

#include <QString>
#include <cstdint>
#include <memory>

class QThread;

namespace forkscope::api {
class LiveMetrics;
}

namespace forkscope::app {

// The local API over HTTP on 127.0.0.1 only: GET /metrics (Prometheus text) and JSON-RPC
// 2.0 on POST / (204 when a body held only notifications; every answer on / is JSON-RPC,
// refusals included, a 503 for load with each call's id). It runs api::HttpServer on its
// own thread with its own read-only database connection (a SQLite file, or a shared
// index's postgresql:// URL), so requests never wait for the indexer and never touch its
// connection.
class LocalApiServer
{
public:
    LocalApiServer(quint16 port, QString dbPath, QString environmentId, std::uint64_t chainId,
                   QString sourceId, const api::LiveMetrics& live);
    ~LocalApiServer();
    // Empty when listening; otherwise why not (e.g. the port is taken).
    QString error() const { return m_error; }
    quint16 port() const { return m_port; }

private:
    QString m_error;
    quint16 m_port = 0;
    std::unique_ptr<QThread> m_thread;
};

} // namespace forkscope::app
