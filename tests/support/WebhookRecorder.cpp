#include "WebhookRecorder.h"

#include <QTcpSocket>
#include <memory>

namespace forkscope::test {

WebhookRecorder::WebhookRecorder(QList<int> script, QObject* parent)
    : QTcpServer(parent), m_script(std::move(script))
{
    connect(this, &QTcpServer::newConnection, this, &WebhookRecorder::onConnection);
    listen(QHostAddress::LocalHost, 0);
}

QUrl WebhookRecorder::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1/hook").arg(serverPort()));
}

QList<QByteArray> WebhookRecorder::acceptedKeys() const
{
    QList<QByteArray> out;
    for (const auto& r : m_requests)
        if (r.status >= 200 && r.status < 300)
            out << r.idempotencyKey;
    return out;
}

void WebhookRecorder::onConnection()
{
    while (QTcpSocket* s = nextPendingConnection()) {
        auto buffer = std::make_shared<QByteArray>();
        connect(s, &QTcpSocket::readyRead, s, [this, s, buffer] {
            buffer->append(s->readAll());
            while (true) {
                const qsizetype headerEnd = buffer->indexOf("\r\n\r\n");
                if (headerEnd < 0)
                    return;
                qsizetype length = 0;
                Request req;
                for (const QByteArray& line : buffer->left(headerEnd).split('\n')) {
                    const QByteArray lower = line.toLower();
                    if (lower.startsWith("content-length:"))
                        length = line.mid(15).trimmed().toLongLong();
                    if (lower.startsWith("idempotency-key:"))
                        req.idempotencyKey = line.mid(16).trimmed();
                }
                if (buffer->size() < headerEnd + 4 + length)
                    return;
                req.body = buffer->mid(headerEnd + 4, length);
                buffer->remove(0, headerEnd + 4 + length);
                req.status = m_script.isEmpty() ? 200 : m_script.takeFirst();
                m_requests.append(req);
                if (req.status == 0)
                    return; // never answer: the sender must time out
                s->write("HTTP/1.1 " + QByteArray::number(req.status) +
                         " Status\r\nContent-Length: 0\r\n\r\n");
            }
        });
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
    }
}

} // namespace forkscope::test
