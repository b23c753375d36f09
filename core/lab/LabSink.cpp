#include "LabSink.h"
#include "DevnetError.h"
#include "api/HttpRequestReader.h"

#include <QHostAddress>
#include <QMutexLocker>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>
#include <memory>

namespace forkscope::lab {

namespace {
QByteArray response(int status, const QByteArray& reason)
{
    return "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason +
           "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
}
} // namespace

LabSink::LabSink(QObject* parent) : QObject(parent) {}

LabSink::~LabSink() = default;

void LabSink::listen()
{
    m_server = new QTcpServer(this);
    m_server->setMaxPendingConnections(kMaxConnections);
    if (!m_server->listen(QHostAddress::LocalHost, 0))
        throw DevnetError(QStringLiteral("the lab's outbox receiver cannot listen: %1")
                              .arg(m_server->errorString()));
    {
        QMutexLocker lock(&m_mutex);
        m_url = QUrl(QStringLiteral("http://127.0.0.1:%1/outbox").arg(m_server->serverPort()));
    }
    connect(m_server, &QTcpServer::newConnection, this, &LabSink::onConnection);
}

QUrl LabSink::url() const
{
    QMutexLocker lock(&m_mutex);
    return m_url;
}

void LabSink::loseNextAcknowledgement()
{
    QMutexLocker lock(&m_mutex);
    m_stats.armed = true;
    m_stats.lostKey.clear();
    m_stats.lostKeyArrivals = 0;
}

LabSink::Stats LabSink::stats() const
{
    QMutexLocker lock(&m_mutex);
    return m_stats;
}

int LabSink::arrivals(const QByteArray& key) const
{
    QMutexLocker lock(&m_mutex);
    return m_arrivals.value(key);
}

void LabSink::onConnection()
{
    while (QTcpSocket* socket = m_server->nextPendingConnection()) {
        // One request per connection, bounded as the local API's are.
        auto reader = std::make_shared<api::HttpRequestReader>(api::HttpRequestReader::Limits{});
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        // A client that connects and sends nothing holds nothing for long.
        QTimer::singleShot(std::chrono::seconds(10), socket, [socket] { socket->abort(); });
        connect(socket, &QTcpSocket::readyRead, this, [this, socket, reader] {
            const auto state = reader->feed(socket->readAll());
            if (state == api::HttpRequestReader::State::Incomplete)
                return;
            if (state == api::HttpRequestReader::State::Failed) {
                {
                    QMutexLocker lock(&m_mutex);
                    ++m_stats.refused;
                }
                socket->write(response(reader->error().status, "Bad Request"));
                socket->disconnectFromHost();
                return;
            }
            const api::HttpRequest request = reader->take();
            const QByteArray key = request.header("idempotency-key");
            bool lose = false;
            {
                QMutexLocker lock(&m_mutex);
                ++m_stats.requests;
                if (key.isEmpty() || request.method != "POST") {
                    ++m_stats.refused;
                } else {
                    const int seen = m_arrivals.value(key);
                    if (seen > 0 || m_arrivals.size() < kMaxKeys) // bounded: then counted only
                        m_arrivals.insert(key, seen + 1);
                    if (seen > 0) {
                        ++m_stats.duplicates; // applied already: answered, not applied again
                    } else {
                        ++m_stats.applied;
                        lose = std::exchange(m_stats.armed, false);
                        if (lose)
                            m_stats.lostKey = key;
                    }
                    if (key == m_stats.lostKey)
                        ++m_stats.lostKeyArrivals;
                }
            }
            if (lose) {
                // Applied, and the answer never leaves: the sender cannot tell it from a
                // request that was lost on its way.
                socket->abort();
                socket->deleteLater();
                return;
            }
            socket->write(key.isEmpty() || request.method != "POST" ? response(400, "Bad Request")
                                                                    : response(200, "OK"));
            socket->disconnectFromHost();
        });
    }
}

LabSink* startLabSinkOn(QThread* thread)
{
    auto* sink = new LabSink;
    sink->moveToThread(thread);
    QObject::connect(thread, &QThread::finished, sink, &QObject::deleteLater);
    QString error;
    QMetaObject::invokeMethod(
        sink,
        [sink, &error] {
            try {
                sink->listen();
            } catch (const std::exception& e) {
                error = QString::fromUtf8(e.what());
            }
        },
        Qt::BlockingQueuedConnection);
    if (!error.isEmpty())
        throw DevnetError(error);
    return sink;
}

} // namespace forkscope::lab
