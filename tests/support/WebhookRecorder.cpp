#include "WebhookRecorder.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
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

WebhookRecorder::Pattern WebhookRecorder::alternating(int failStatus)
{
    return [failStatus](qsizetype index) { return index % 2 == 0 ? failStatus : 200; };
}

WebhookRecorder::Pattern WebhookRecorder::flapping(quint32 seed, int failStatus)
{
    auto generator = std::make_shared<QRandomGenerator>(seed);
    return [generator, failStatus](qsizetype) {
        return generator->bounded(2) == 0 ? failStatus : 200;
    };
}

QList<QByteArray> WebhookRecorder::batchEventKeys(const QByteArray& body)
{
    QList<QByteArray> out;
    for (const QJsonValue& v : QJsonDocument::fromJson(body).array())
        out << v.toObject().value(QStringLiteral("eventKey")).toString().toUtf8();
    return out;
}

QList<QByteArray> WebhookRecorder::acceptedEventKeys() const
{
    QList<QByteArray> out;
    for (const auto& r : m_requests)
        if (r.status >= 200 && r.status < 300) {
            if (r.body.startsWith('['))
                out << batchEventKeys(r.body);
            else
                out << r.idempotencyKey;
        }
    return out;
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
                req.status = !m_script.isEmpty() ? m_script.takeFirst()
                             : m_pattern         ? m_pattern(m_requests.size())
                                                 : 200;
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
