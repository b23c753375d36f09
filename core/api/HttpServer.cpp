#include "HttpServer.h"

#include <QTcpSocket>
#include <QTimer>

namespace forkscope::api {

namespace {
// Read from the socket in pieces, so the reader never holds more than a piece beyond its
// limits; Qt's own buffer per socket is capped at a few pieces.
constexpr qint64 kReadPiece = 16 * 1024;

QByteArray reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 204:
        return "No Content";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    }
    return "Unknown";
}

HttpResponse plainError(const HttpError& e)
{
    return {e.status, "text/plain; charset=utf-8", e.message.toUtf8() + '\n', {}};
}
} // namespace

// One client connection: reads requests, answers them in order, and ends itself.
class HttpServer::Connection : public QObject
{
public:
    Connection(HttpServer& server, QTcpSocket* socket)
        : QObject(&server), m_server(server), m_socket(socket), m_reader(server.m_limits.request)
    {
        m_server.m_connections.insert(this);
        m_socket->setParent(this);
        m_socket->setReadBufferSize(4 * kReadPiece);
        m_deadline.setSingleShot(true);
        connect(&m_deadline, &QTimer::timeout, this, &Connection::onDeadline);
        connect(m_socket, &QTcpSocket::readyRead, this, &Connection::serve);
        connect(m_socket, &QTcpSocket::bytesWritten, this, &Connection::serve);
        connect(m_socket, &QTcpSocket::disconnected, this, &QObject::deleteLater);
        m_deadline.start(m_server.m_limits.requestTimeout);
        serve();
    }
    ~Connection() override { m_server.m_connections.remove(this); }

private:
    void serve()
    {
        if (m_lingering) {
            m_socket->readAll(); // bounded by the socket's read buffer
            return;
        }
        while (!m_closing) {
            // A client that pipelines but does not read its replies waits here.
            if (m_socket->bytesToWrite() > m_server.m_limits.maxPendingWrite)
                return;
            const HttpRequestReader::State s = m_reader.parse();
            if (s == HttpRequestReader::State::Failed) {
                refuse(m_reader.error());
                return;
            }
            if (s == HttpRequestReader::State::Incomplete) {
                if (m_socket->bytesAvailable() <= 0) {
                    // Only when nothing of the body has come: a client that did not wait
                    // needs no prompt.
                    if (m_reader.takeContinue())
                        m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
                    return;
                }
                m_reader.feed(m_socket->read(kReadPiece));
                continue;
            }
            const HttpRequest request = m_reader.take();
            const bool keepAlive = request.keepAlive();
            HttpResponse response;
            try {
                response = m_server.m_handler(request);
            } catch (const std::exception& e) {
                response = plainError({500, QString::fromUtf8(e.what())});
            }
            m_socket->write(serialize(response, !keepAlive));
            if (!keepAlive) {
                m_closing = true; // the deadline aborts a client that never reads it
                m_socket->disconnectFromHost();
                return;
            }
            m_deadline.start(m_server.m_limits.requestTimeout);
        }
    }

    void refuse(const HttpError& e)
    {
        const HttpResponse r = m_server.m_errorPage ? m_server.m_errorPage(e) : plainError(e);
        m_socket->write(serialize(r, true));
        // The client may still be sending (the body that was refused): closing now would
        // reset the connection and could destroy the response before it is read.
        m_lingering = true;
        m_socket->readAll();
        m_deadline.start(m_server.m_limits.linger);
    }

    void onDeadline()
    {
        if (!m_closing && !m_lingering && m_reader.inRequest()) {
            refuse({408, QStringLiteral("request not complete within %1 ms")
                             .arg(m_server.m_limits.requestTimeout.count())});
            return;
        }
        m_socket->abort(); // idle, lingering, or not reading its last response
        deleteLater();
    }

    HttpServer& m_server;
    QTcpSocket* m_socket;
    HttpRequestReader m_reader;
    QTimer m_deadline;
    bool m_closing = false;
    bool m_lingering = false;
};

HttpServer::HttpServer(Limits limits, Handler handler, ErrorPage errorPage, QObject* parent)
    : QObject(parent), m_limits(limits), m_handler(std::move(handler)),
      m_errorPage(std::move(errorPage))
{
    connect(&m_tcp, &QTcpServer::newConnection, this, &HttpServer::acceptAll);
}

HttpServer::~HttpServer()
{
    // Before the members go: each connection unregisters itself from m_connections.
    const QSet<Connection*> open = m_connections;
    qDeleteAll(open);
}

quint16 HttpServer::listen(const QHostAddress& address, quint16 port)
{
    if (!m_tcp.listen(address, port))
        return 0;
    return m_tcp.serverPort();
}

void HttpServer::acceptAll()
{
    while (QTcpSocket* socket = m_tcp.nextPendingConnection()) {
        if (m_connections.size() < m_limits.maxConnections) {
            new Connection(*this, socket);
            continue;
        }
        socket->setParent(this);
        socket->write(serialize(plainError({503, QStringLiteral("more than %1 open connections")
                                                     .arg(m_limits.maxConnections)}),
                                true));
        socket->disconnectFromHost();
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        QTimer::singleShot(m_limits.linger, socket, [socket] {
            socket->abort();
            socket->deleteLater();
        });
    }
}

QByteArray HttpServer::serialize(const HttpResponse& r, bool close)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(r.status) + ' ' + reason(r.status) + "\r\n";
    // RFC 9110 §8.6: no Content-Length (and no content) in a 204.
    if (r.status != 204) {
        if (!r.contentType.isEmpty())
            out += "Content-Type: " + r.contentType + "\r\n";
        out += "Content-Length: " + QByteArray::number(r.body.size()) + "\r\n";
    }
    for (const auto& [name, value] : r.headers)
        out += name + ": " + value + "\r\n";
    if (close)
        out += "Connection: close\r\n";
    out += "\r\n";
    if (r.status != 204)
        out += r.body;
    return out;
}

} // namespace forkscope::api
