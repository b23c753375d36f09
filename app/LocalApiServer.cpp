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
api::HttpResponse jsonRpcError(int status, int code, const QString& message)
{
    return {status, "application/json", api::jsonRpcErrorReply(code, message), {}};
}

api::HttpResponse route(api::LocalApi& localApi, const api::HttpRequest& request)
{
    const QByteArray path = request.path();
    if (path == "/metrics") {
        if (request.method != "GET")
            return {405, "text/plain; charset=utf-8", "use GET here\n", {{"Allow", "GET"}}};
        return {200, "text/plain; version=0.0.4", localApi.metrics(), {}};
    }
    if (path == "/") {
        if (request.method != "POST") {
            api::HttpResponse r = jsonRpcError(405, api::jsonrpc::kInvalidRequest,
                                               QStringLiteral("JSON-RPC is answered on POST"));
            r.headers.append({QByteArray("Allow"), QByteArray("POST")});
            return r;
        }
        // Only notifications: the spec says to return nothing at all.
        const std::optional<QByteArray> reply = localApi.handleJsonRpc(request.body);
        if (!reply)
            return {204, {}, {}, {}};
        return {200, "application/json", *reply, {}};
    }
    return {404, "text/plain; charset=utf-8", "no such path (GET /metrics, POST /)\n", {}};
}

// The JSON-RPC path answers every refusal in JSON-RPC, since its clients speak nothing else;
// /metrics (Prometheus text), other paths and requests not read as far as their path get
// plain text.
api::HttpResponse errorPage(const api::HttpError& e, const api::HttpRequest& request)
{
    if (request.path() != "/")
        return {e.status, "text/plain; charset=utf-8", e.message.toUtf8() + '\n', {}};
    switch (e.status) {
    case 503: {
        if (request.method != "POST")
            return jsonRpcError(503, api::jsonrpc::kServerBusy, e.message);
        // The whole body was read: each call is refused with its own id.
        const std::optional<QByteArray> reply =
            api::refuseJsonRpc(request.body, api::jsonrpc::kServerBusy, e.message);
        if (!reply) // notifications only: nothing to answer, as when they are served
            return {503, {}, {}, {}};
        return {503, "application/json", *reply, {}};
    }
    case 500:
        return jsonRpcError(500, api::jsonrpc::kInternalError, e.message);
    default:
        // Refused before its body was read (too large, malformed framing, too slow): its id
        // cannot be known, so it is null, as the specification says.
        return jsonRpcError(e.status, api::jsonrpc::kInvalidRequest, e.message);
    }
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
