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

// Accepts with the read buffer bounded from the first byte: a connection accepted but not
// yet taken (Qt keeps one) must not read a client's bytes without limit either.
class BoundedListener final : public QTcpServer
{
public:
    explicit BoundedListener(QObject* parent) : QTcpServer(parent)
    {
        // Taken one at a time: the rest stay in the kernel's queue until there is room.
        setMaxPendingConnections(1);
    }

protected:
    void incomingConnection(qintptr descriptor) override
    {
        auto* socket = new QTcpSocket(this);
        socket->setReadBufferSize(4 * kReadPiece);
        socket->setSocketDescriptor(descriptor);
        addPendingConnection(socket);
    }
};
} // namespace

// One client connection: reads requests, answers them in order, and ends itself. One
// refused for load reads a single request and answers it 503.
class HttpServer::Connection : public QObject
{
public:
    Connection(HttpServer& server, QTcpSocket* socket, Role role)
        : QObject(&server), m_server(server), m_socket(socket), m_role(role),
          m_reader(server.m_limits.request)
    {
        m_server.m_connections.insert(this);
        m_socket->setParent(this);
        m_deadline.setSingleShot(true);
        connect(&m_deadline, &QTimer::timeout, this, &Connection::onDeadline);
        connect(m_socket, &QTcpSocket::readyRead, this, &Connection::serve);
        connect(m_socket, &QTcpSocket::bytesWritten, this, &Connection::onBytesWritten);
        connect(m_socket, &QTcpSocket::disconnected, this, &QObject::deleteLater);
        // Gone while it waited in the queue: nobody to answer.
        if (m_socket->state() != QAbstractSocket::ConnectedState) {
            deleteLater();
            return;
        }
        m_deadline.start(m_server.m_limits.requestTimeout);
        serve();
    }
    ~Connection() override { m_server.connectionEnded(this, m_role); }

    qsizetype pendingWrite() const { return m_socket->bytesToWrite(); }

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
                refuse(m_reader.error(), m_reader.partial());
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
            // Accepted to be refused, but a served client left meanwhile: served after all.
            if (m_role == Role::RefuseForLoad && !m_server.promote()) {
                refuseForLoad(m_reader.take());
                return;
            }
            m_role = Role::Serve;
            // Replies waiting over all connections: this one's next waits for the clients.
            if (!m_server.mayHandle(this))
                return;
            const HttpRequest request = m_reader.take();
            const bool keepAlive = request.keepAlive();
            HttpResponse response;
            try {
                response = m_server.m_handler(request);
            } catch (const std::exception& e) {
                response = m_server.m_errorPage({500, QString::fromUtf8(e.what())}, request);
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

private:
    void onBytesWritten()
    {
        m_server.wakeStalled();
        serve();
    }

    void refuseForLoad(const HttpRequest& request)
    {
        const qint64 seconds = m_server.m_limits.retryAfter.count();
        refuse({503, QStringLiteral("server busy: %1 connections are being served; retry in %2 s")
                         .arg(m_server.m_limits.maxConnections)
                         .arg(seconds)},
               request, {{"Retry-After", QByteArray::number(seconds)}});
    }

    void refuse(const HttpError& e, const HttpRequest& request,
                const QList<QPair<QByteArray, QByteArray>>& headers = {})
    {
        HttpResponse r = m_server.m_errorPage(e, request);
        r.headers += headers;
        m_socket->write(serialize(r, true));
        // The client may still be sending (the body that was refused): closing now would
        // reset the connection and could destroy the response before it is read.
        m_lingering = true;
        m_socket->readAll();
        m_deadline.start(m_server.m_limits.linger);
    }

    void onDeadline()
    {
        // A whole request, waiting for the clients to read what was answered before it.
        if (m_server.m_stalled.remove(this)) {
            refuseForLoad(m_reader.take());
            return;
        }
        if (!m_closing && !m_lingering && m_reader.inRequest()) {
            refuse({408, QStringLiteral("request not complete within %1 ms")
                             .arg(m_server.m_limits.requestTimeout.count())},
                   m_reader.partial());
            return;
        }
        m_socket->abort(); // idle, lingering, or not reading its last response
        deleteLater();
    }

    HttpServer& m_server;
    QTcpSocket* m_socket;
    Role m_role;
    HttpRequestReader m_reader;
    QTimer m_deadline;
    bool m_closing = false;
    bool m_lingering = false;
};

HttpServer::HttpServer(Limits limits, Handler handler, ErrorPage errorPage, QObject* parent)
    : QObject(parent), m_limits(limits), m_handler(std::move(handler)),
      m_errorPage(errorPage ? std::move(errorPage)
                            : ErrorPage([](const HttpError& e, const HttpRequest&) {
                                  return plainError(e);
                              })),
      m_tcp(new BoundedListener(this))
{
    m_tcp->setListenBacklogSize(m_limits.listenBacklog);
    connect(m_tcp, &QTcpServer::newConnection, this, &HttpServer::acceptAll);
}

HttpServer::~HttpServer()
{
    // Before the members go: each connection unregisters itself from m_connections.
    const QSet<Connection*> open = m_connections;
    qDeleteAll(open);
}

quint16 HttpServer::listen(const QHostAddress& address, quint16 port)
{
    if (!m_tcp->listen(address, port))
        return 0;
    return m_tcp->serverPort();
}

qsizetype HttpServer::pendingWrite() const
{
    qsizetype total = 0;
    for (const Connection* c : m_connections)
        total += c->pendingWrite();
    return total;
}

void HttpServer::acceptAll()
{
    while (m_tcp->hasPendingConnections()) {
        Role role = Role::Serve;
        if (m_serving < m_limits.maxConnections) {
            ++m_serving;
        } else if (m_refusing < m_limits.maxRefusing) {
            role = Role::RefuseForLoad;
            ++m_refusing;
        } else {
            return; // left pending: Qt stops accepting, the kernel queues the rest
        }
        new Connection(*this, m_tcp->nextPendingConnection(), role);
    }
}

void HttpServer::connectionEnded(Connection* c, Role role)
{
    m_connections.remove(c);
    m_stalled.remove(c);
    --(role == Role::Serve ? m_serving : m_refusing);
    // Queued: this runs in a destructor, maybe the server's own (then the calls are dropped).
    QMetaObject::invokeMethod(this, &HttpServer::acceptAll, Qt::QueuedConnection);
    QMetaObject::invokeMethod(this, &HttpServer::wakeStalled, Qt::QueuedConnection);
}

bool HttpServer::promote()
{
    if (m_serving >= m_limits.maxConnections)
        return false;
    ++m_serving;
    --m_refusing;
    QMetaObject::invokeMethod(this, &HttpServer::acceptAll, Qt::QueuedConnection);
    return true;
}

bool HttpServer::mayHandle(Connection* c)
{
    if (pendingWrite() <= m_limits.maxPendingWriteTotal)
        return true;
    m_stalled.insert(c);
    return false;
}

void HttpServer::wakeStalled()
{
    if (m_stalled.isEmpty() || pendingWrite() > m_limits.maxPendingWriteTotal)
        return;
    const QSet<Connection*> woken = std::exchange(m_stalled, {});
    for (Connection* c : woken)
        QMetaObject::invokeMethod(c, &Connection::serve, Qt::QueuedConnection);
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
