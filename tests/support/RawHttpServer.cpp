#include "RawHttpServer.h"

#include <QTcpSocket>

namespace forkscope::test {

RawHttpServer::RawHttpServer(QObject* parent) : QTcpServer(parent)
{
    connect(this, &QTcpServer::newConnection, this, &RawHttpServer::onConnection);
    listen(QHostAddress::LocalHost, 0);
}

void RawHttpServer::respondWith(int status, const QByteArray& body, const QByteArray& contentType)
{
    m_mode = Mode::Respond;
    m_status = status;
    m_body = body;
    m_contentType = contentType;
}

QUrl RawHttpServer::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1/").arg(serverPort()));
}

void RawHttpServer::onConnection()
{
    while (QTcpSocket* s = nextPendingConnection()) {
        auto buffer = std::make_shared<QByteArray>();
        connect(s, &QTcpSocket::readyRead, s, [this, s, buffer] {
            buffer->append(s->readAll());
            const qsizetype headerEnd = buffer->indexOf("\r\n\r\n");
            if (headerEnd < 0)
                return;
            qsizetype length = 0;
            for (const QByteArray& line : buffer->left(headerEnd).split('\n')) {
                if (line.toLower().startsWith("content-length:"))
                    length = line.mid(15).trimmed().toLongLong();
            }
            if (buffer->size() < headerEnd + 4 + length)
                return;
            ++m_requests;
            m_lastBody = buffer->mid(headerEnd + 4, length);
            buffer->remove(0, headerEnd + 4 + length);
            if (m_mode == Mode::Silent)
                return; // keep the connection open and say nothing
            if (m_mode == Mode::Raw) {
                s->write(m_body);
                return;
            }
            QByteArray reply = "HTTP/1.1 " + QByteArray::number(m_status) + " Status\r\n";
            reply += "Content-Type: " + m_contentType + "\r\n";
            reply += "Content-Length: " + QByteArray::number(m_body.size()) + "\r\n";
            reply += "Connection: close\r\n\r\n";
            reply += m_body;
            s->write(reply);
            s->disconnectFromHost();
        });
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
    }
}

} // namespace forkscope::test
