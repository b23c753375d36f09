#include "FlappingWebhook.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTcpSocket>
#include <memory>

namespace forkscope::bench {

FlappingWebhook::FlappingWebhook(Pattern pattern, double failRate, quint32 seed)
    : m_pattern(pattern), m_failRate(failRate), m_random(seed)
{
    connect(this, &QTcpServer::newConnection, this, &FlappingWebhook::onConnection);
    listen(QHostAddress::LocalHost, 0);
}

QUrl FlappingWebhook::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1/hook").arg(serverPort()));
}

bool FlappingWebhook::fails()
{
    if (m_pattern == Pattern::Alternate)
        return requests % 2 == 0; // the first request fails, the second succeeds, ...
    return m_random.generateDouble() < m_failRate;
}

void FlappingWebhook::accept(const QByteArray& idempotencyKey, const QByteArray& body)
{
    QList<QByteArray> rowKeys;
    if (body.startsWith('[')) {
        for (const QJsonValue& v : QJsonDocument::fromJson(body).array())
            rowKeys << v.toObject().value(QLatin1String("eventKey")).toString().toUtf8();
    } else {
        rowKeys << idempotencyKey;
    }
    for (const QByteArray& k : rowKeys) {
        ++acceptedRows;
        if (keys.contains(k))
            ++duplicateRows;
        else
            keys.insert(k);
    }
}

void FlappingWebhook::onConnection()
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
                QByteArray key;
                for (const QByteArray& line : buffer->left(headerEnd).split('\n')) {
                    const QByteArray lower = line.toLower();
                    if (lower.startsWith("content-length:"))
                        length = line.mid(15).trimmed().toLongLong();
                    if (lower.startsWith("idempotency-key:"))
                        key = line.mid(16).trimmed();
                }
                if (buffer->size() < headerEnd + 4 + length)
                    return;
                const QByteArray body = buffer->mid(headerEnd + 4, length);
                buffer->remove(0, headerEnd + 4 + length);
                const bool failed = fails();
                ++requests;
                if (failed)
                    ++failedRequests;
                else
                    accept(key, body);
                s->write(failed ? "HTTP/1.1 503 Flapping\r\nContent-Length: 0\r\n\r\n"
                                : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
            }
        });
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
    }
}

} // namespace forkscope::bench
