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
// - open connections: past maxConnections a new one is answered 503 and closed;
// - a request: HttpRequestReader's limits on the header block, header count and body, each
//   refused (413, 431, ...) as soon as the bytes show it, then the connection is closed;
// - time: a request must be complete within requestTimeout of the connection or of the
//   previous response (408 if it was under way, a plain close if the connection was idle),
//   so a slow or silent client holds a slot that long at most;
// - replies: while more than maxPendingWrite bytes wait for a client that does not read,
//   no further pipelined request is read.
// Keep-alive: HTTP/1.1 connections stay open (and may pipeline) unless the client sends
// "Connection: close"; HTTP/1.0 ones close after the response. After an error response
// the server reads and discards for up to `linger` before closing, so the client gets the
// response rather than a reset.
// Runs on the thread it was created on; the handler runs there, one request at a time.
class HttpServer : public QObject
{
    Q_OBJECT
public:
    struct Limits
    {
        HttpRequestReader::Limits request;
        int maxConnections = 32;
        std::chrono::milliseconds requestTimeout{10000};
        std::chrono::milliseconds linger{2000};
        qsizetype maxPendingWrite = 1024 * 1024;
    };
    using Handler = std::function<HttpResponse(const HttpRequest&)>;
    // The response for a refused request (the default: text/plain, the message).
    using ErrorPage = std::function<HttpResponse(const HttpError&)>;

    HttpServer(Limits limits, Handler handler, ErrorPage errorPage = {}, QObject* parent = nullptr);
    ~HttpServer() override;

    // The bound port, or 0 when it cannot listen (errorString() says why).
    quint16 listen(const QHostAddress& address, quint16 port);
    QString errorString() const { return m_tcp.errorString(); }

    static QByteArray serialize(const HttpResponse& r, bool close);

private:
    class Connection;
    friend class Connection;
    void acceptAll();

    Limits m_limits;
    Handler m_handler;
    ErrorPage m_errorPage;
    QTcpServer m_tcp;
    QSet<Connection*> m_connections;
};

} // namespace forkscope::api
