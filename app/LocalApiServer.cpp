#include "LocalApiServer.h"
#include "api/JsonRpcEnvelope.h"
#include "api/LocalApi.h"
#include "store/Database.h"

#include <QEventLoop>
#include <QHttpServer>
#include <QHttpServerResponse>
#include <QSemaphore>
#include <QThread>

namespace forkscope::app {

LocalApiServer::LocalApiServer(quint16 port, QString dbPath, QString environmentId,
                               std::uint64_t chainId, QString sourceId,
                               const api::LiveMetrics& live)
{
    QSemaphore ready;
    m_thread.reset(QThread::create([&, dbPath, environmentId, sourceId, chainId] {
        std::unique_ptr<store::Database> db;
        try {
            store::Database::Options ro;
            ro.readOnly = true;
            db = store::Database::open(dbPath, ro);
        } catch (const store::StoreError& e) {
            m_error = e.message();
            ready.release();
            return;
        }
        api::LocalApi localApi(*db, environmentId, chainId, sourceId, live);
        QHttpServer server;
        server.route(QStringLiteral("/metrics"), QHttpServerRequest::Method::Get,
                     [&localApi](const QHttpServerRequest&) {
                         return QHttpServerResponse(QByteArrayLiteral("text/plain; version=0.0.4"),
                                                    localApi.metrics());
                     });
        server.route(QStringLiteral("/"), QHttpServerRequest::Method::Post,
                     [&localApi](const QHttpServerRequest& request) {
                         const QByteArray body = request.body();
                         if (body.size() > api::LocalApi::kMaxBody)
                             return QHttpServerResponse(
                                 QByteArrayLiteral("application/json"),
                                 api::jsonRpcErrorReply(
                                     api::jsonrpc::kInvalidRequest,
                                     QStringLiteral("request of %1 bytes is larger than %2")
                                         .arg(body.size())
                                         .arg(api::LocalApi::kMaxBody)),
                                 QHttpServerResponder::StatusCode::PayloadTooLarge);
                         // Only notifications: the spec says to return nothing at all.
                         const std::optional<QByteArray> reply = localApi.handleJsonRpc(body);
                         if (!reply)
                             return QHttpServerResponse(
                                 QHttpServerResponder::StatusCode::NoContent);
                         return QHttpServerResponse(QByteArrayLiteral("application/json"), *reply);
                     });
        const quint16 bound = server.listen(QHostAddress::LocalHost, port);
        if (bound == 0) {
            m_error = QStringLiteral("cannot listen on 127.0.0.1:%1 (in use?)").arg(port);
            ready.release();
            return;
        }
        m_port = bound;
        ready.release();
        // QThread::quit() ends every event loop of this thread, including this one.
        QEventLoop loop;
        loop.exec();
    }));
    m_thread->setObjectName(QStringLiteral("forkscope-api"));
    m_thread->start();
    ready.acquire();
}

LocalApiServer::~LocalApiServer()
{
    m_thread->quit();
    m_thread->wait();
}

} // namespace forkscope::app
