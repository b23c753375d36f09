#include "LocalApiServer.h"
#include "api/HttpServer.h"
#include "api/JsonRpcEnvelope.h"
#include "api/LocalApi.h"
#include "store/ReadOnlyStore.h"
#include "store/StoreError.h"

#include <QEventLoop>
#include <QSemaphore>
#include <QThread>

namespace forkscope::app {

namespace {
api::HttpResponse methodNotAllowed(const QByteArray& allowed)
{
    return {405, "text/plain; charset=utf-8", "use " + allowed + " here\n", {{"Allow", allowed}}};
}

api::HttpResponse route(api::LocalApi& localApi, const api::HttpRequest& request)
{
    const QByteArray path = request.path();
    if (path == "/metrics") {
        if (request.method != "GET")
            return methodNotAllowed("GET");
        return {200, "text/plain; version=0.0.4", localApi.metrics(), {}};
    }
    if (path == "/") {
        if (request.method != "POST")
            return methodNotAllowed("POST");
        // Only notifications: the spec says to return nothing at all.
        const std::optional<QByteArray> reply = localApi.handleJsonRpc(request.body);
        if (!reply)
            return {204, {}, {}, {}};
        return {200, "application/json", *reply, {}};
    }
    return {404, "text/plain; charset=utf-8", "no such path (GET /metrics, POST /)\n", {}};
}

// A body refused for its size still gets a JSON-RPC error, since its client speaks JSON-RPC.
api::HttpResponse errorPage(const api::HttpError& e)
{
    if (e.status == 413)
        return {413,
                "application/json",
                api::jsonRpcErrorReply(api::jsonrpc::kInvalidRequest, e.message),
                {}};
    return {e.status, "text/plain; charset=utf-8", e.message.toUtf8() + '\n', {}};
}
} // namespace

LocalApiServer::LocalApiServer(quint16 port, QString dbPath, QString environmentId,
                               std::uint64_t chainId, QString sourceId,
                               const api::LiveMetrics& live)
{
    QSemaphore ready;
    m_thread.reset(QThread::create([&, dbPath, environmentId, sourceId, chainId] {
        std::unique_ptr<store::ReadOnlyStore> db;
        try {
            db = store::ReadOnlyStore::open(dbPath);
        } catch (const store::StoreError& e) {
            m_error = e.message();
            ready.release();
            return;
        }
        api::LocalApi localApi(db->reader(), environmentId, chainId, sourceId, live);
        api::HttpServer::Limits limits;
        limits.request.maxBody = api::LocalApi::kMaxBody;
        api::HttpServer server(
            limits,
            [&localApi](const api::HttpRequest& request) { return route(localApi, request); },
            errorPage);
        const quint16 bound = server.listen(QHostAddress::LocalHost, port);
        if (bound == 0) {
            m_error = QStringLiteral("cannot listen on 127.0.0.1:%1: %2")
                          .arg(port)
                          .arg(server.errorString());
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
