#pragma once

#include "HttpRequestReader.h"

#include <QHostAddress>
#include <QObject>
#include <QSet>
#include <QTcpServer>
#include <chrono>
#include <functional>

namespace forkscope::api {

struct HttpResponse
{
    int status = 200;
    QByteArray contentType; // with a body; none for 204
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers; // extra ones, e.g. Allow
};

// A small HTTP/1.1 server for the local API, written for its bounds rather than features
// (Qt 6.4's QHttpServer reads a whole body before routing and has no limit on it).
// Every resource a client can make it hold is bounded:
// - connections, in three tiers. Up to maxConnections are served. Past that, up to
//   maxRefusing more are accepted to read one request each (bounded as any other): served
//   if a served client has left by the time it is complete, otherwise answered 503 with
//   Retry-After through the error page, which then knows the request (a JSON-RPC call's
//   id, say). Past both, connections are left in the kernel's accept queue (listenBacklog
//   long) and taken in order as others end: a burst waits rather than being refused, and
//   waiting there costs this process nothing;
// - a request: HttpRequestReader's limits on the header block, header count and body, each
//   refused (413, 431, ...) as soon as the bytes show it, then the connection is closed;
// - time: a request must be complete within requestTimeout of the connection or of the
//   previous response (408 if it was under way, a plain close if the connection was idle),
//   so a slow or silent client holds a slot that long at most;
// - replies: while more than maxPendingWrite bytes wait for a client that does not read, no
//   further pipelined request is read from it; while more than maxPendingWriteTotal wait
//   over all connections, no connection's next request is handled until clients read.
// Keep-alive: HTTP/1.1 connections stay open (and may pipeline) unless the client sends
// "Connection: close"; HTTP/1.0 ones close after the response. After an error response
// the server reads and discards for up to `linger` before closing, so the client gets the
// response rather than a reset.
// Runs on the thread it was created on; the handler runs there, one request at a time, so
// more connections queue requests rather than run them at once.
class HttpServer : public QObject
{
    Q_OBJECT
public:
    struct Limits
    {
        HttpRequestReader::Limits request;
        // A connection holds at most ~160 KiB of request buffers (the socket's 64 KiB, a
        // request's 16 KiB of headers and 64 KiB of body, a read piece), so 160 of them stay
        // near 25 MiB, and replies add at most maxPendingWriteTotal plus the last one
        // handled. 128 served is well past what local scripts, dashboards and pools open;
        // requests are handled one at a time anyway, so more would only queue longer.
        int maxConnections = 128;
        int maxRefusing = 32;
        int listenBacklog = 128;
        std::chrono::milliseconds requestTimeout{10000};
        std::chrono::milliseconds linger{2000};
        std::chrono::seconds retryAfter{1}; // sent with a refusal for load
        qsizetype maxPendingWrite = 1024 * 1024;
        qsizetype maxPendingWriteTotal = 32 * 1024 * 1024;
    };
    using Handler = std::function<HttpResponse(const HttpRequest&)>;
    // The response for a refused request: `request` is what was read of it (complete for a
    // refusal for load, status 503; partial, maybe empty, otherwise). The default is
    // text/plain with the message.
    using ErrorPage = std::function<HttpResponse(const HttpError&, const HttpRequest& request)>;

    HttpServer(Limits limits, Handler handler, ErrorPage errorPage = {}, QObject* parent = nullptr);
    ~HttpServer() override;

    // The bound port, or 0 when it cannot listen (errorString() says why).
    quint16 listen(const QHostAddress& address, quint16 port);
    QString errorString() const { return m_tcp->errorString(); }
    // Bytes of responses not yet taken by the clients' sockets, over all connections.
    qsizetype pendingWrite() const;

    static QByteArray serialize(const HttpResponse& r, bool close);

private:
    class Connection;
    friend class Connection;
    enum class Role { Serve, RefuseForLoad };
    void acceptAll();
    void connectionEnded(Connection* c, Role role);
    // Moves a connection accepted for refusal to the served ones, if one has room.
    bool promote();
    // Whether a served connection may handle its next request now; if not, it is woken
    // when the clients have read enough.
    bool mayHandle(Connection* c);
    void wakeStalled();

    Limits m_limits;
    Handler m_handler;
    ErrorPage m_errorPage;
    QTcpServer* m_tcp; // a child
    QSet<Connection*> m_connections;
    QSet<Connection*> m_stalled; // waiting for maxPendingWriteTotal
    int m_serving = 0;
    int m_refusing = 0;
};

} // namespace forkscope::api
