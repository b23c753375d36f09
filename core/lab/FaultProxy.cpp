#include "FaultProxy.h"
#include "DevnetError.h"
#include "chain/Hex.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QTcpSocket>
#include <QTimer>

namespace forkscope::lab {

namespace {
constexpr qsizetype kMaxRequestBytes = 16 * 1024 * 1024;

// A JSON-RPC response object for request `req` with `result`.
QJsonObject resultFor(const QJsonObject& req, const QJsonValue& result)
{
    return QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                       {QStringLiteral("id"), req.value(QLatin1String("id"))},
                       {QStringLiteral("result"), result}};
}
} // namespace

FaultProxy::FaultProxy(const QUrl& upstream, QObject* parent)
    : QObject(parent), m_upstream(upstream), m_nam(new QNetworkAccessManager(this))
{
    m_nam->setProxy(QNetworkProxy::NoProxy);
    connect(&m_server, &QTcpServer::newConnection, this, &FaultProxy::onConnection);
}

FaultProxy::~FaultProxy() = default;

void FaultProxy::listen(quint16 port)
{
    if (!m_server.listen(QHostAddress::LocalHost, port))
        throw DevnetError(QStringLiteral("fault proxy cannot listen on 127.0.0.1:%1: %2")
                              .arg(port)
                              .arg(m_server.errorString()));
}

QUrl FaultProxy::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort()));
}

void FaultProxy::onConnection()
{
    while (QTcpSocket* s = m_server.nextPendingConnection()) {
        if (m_offline) {
            s->abort(); // a dead node: no reply at all
            s->deleteLater();
            continue;
        }
        connect(s, &QTcpSocket::readyRead, this, [this, s] { onReadyRead(s); });
        connect(s, &QTcpSocket::disconnected, this, [this, s] {
            m_buffers.remove(s);
            s->deleteLater();
        });
    }
}

void FaultProxy::onReadyRead(QTcpSocket* s)
{
    QByteArray& buf = m_buffers[s];
    buf += s->readAll();
    while (true) {
        const qsizetype headerEnd = buf.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        qsizetype length = 0;
        for (const QByteArray& line : buf.left(headerEnd).split('\n'))
            if (line.toLower().startsWith("content-length:"))
                length = line.mid(15).trimmed().toLongLong();
        if (length < 0 || length > kMaxRequestBytes) {
            reply(s, 413, "request too large");
            s->disconnectFromHost();
            return;
        }
        if (buf.size() < headerEnd + 4 + length)
            return;
        const QByteArray body = buf.mid(headerEnd + 4, length);
        buf.remove(0, headerEnd + 4 + length);
        handle(s, body);
    }
}

void FaultProxy::handle(QTcpSocket* s, const QByteArray& body)
{
    QPointer<QTcpSocket> socket(s);
    auto proceed = [this, socket, body] {
        if (!socket)
            return;
        if (m_offline) {
            socket->abort();
            return;
        }
        if (m_lagBlocks == 0) {
            forward(socket, body, -1);
            return;
        }
        // Learn the upstream head first, to know where the lagging view ends.
        QNetworkRequest req(m_upstream);
        req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply* r = m_nam->post(
            req, QByteArrayLiteral(R"({"jsonrpc":"2.0","id":0,"method":"eth_blockNumber","params":[]})"));
        connect(r, &QNetworkReply::finished, this, [this, r, socket, body] {
            r->deleteLater();
            if (!socket)
                return;
            const QJsonValue head = QJsonDocument::fromJson(r->readAll()).object().value(QLatin1String("result"));
            qint64 lagHead = -1;
            try {
                const auto h = chain::hex::parseQuantityU63(head, QStringLiteral("upstream head"));
                lagHead = h > m_lagBlocks ? qint64(h - m_lagBlocks) : 0;
            } catch (const std::exception&) {
                reply(socket, 502, "upstream unavailable");
                return;
            }
            forward(socket, body, lagHead);
        });
    };
    if (m_latencyMs > 0)
        QTimer::singleShot(int(m_latencyMs), this, proceed);
    else
        proceed();
}

void FaultProxy::forward(QTcpSocket* s, const QByteArray& body, qint64 lagHead)
{
    QNetworkRequest req(m_upstream);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply* r = m_nam->post(req, body);
    QPointer<QTcpSocket> socket(s);
    connect(r, &QNetworkReply::finished, this, [this, r, socket, body, lagHead] {
        r->deleteLater();
        if (!socket)
            return;
        const int status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 0) {
            reply(socket, 502, "upstream unavailable: " + r->errorString().toUtf8());
            return;
        }
        QByteArray out = r->readAll();
        if (lagHead >= 0)
            out = rewrite(body, out, lagHead);
        reply(socket, status, out);
    });
}

QByteArray FaultProxy::rewrite(const QByteArray& requestBody, const QByteArray& replyBody,
                               qint64 lagHead) const
{
    const QJsonDocument reqDoc = QJsonDocument::fromJson(requestBody);
    const QJsonDocument repDoc = QJsonDocument::fromJson(replyBody);
    const bool batch = reqDoc.isArray();
    const QJsonArray reqs = batch ? reqDoc.array() : QJsonArray{reqDoc.object()};
    const QJsonArray reps = repDoc.isArray() ? repDoc.array() : QJsonArray{repDoc.object()};
    QHash<QString, QJsonObject> byId;
    for (const QJsonValue& v : reps)
        byId.insert(QString::fromUtf8(QJsonDocument(QJsonArray{v.toObject().value(QLatin1String("id"))}).toJson()),
                    v.toObject());
    QJsonArray out;
    for (const QJsonValue& rv : reqs) {
        const QJsonObject req = rv.toObject();
        const QString idKey = QString::fromUtf8(QJsonDocument(QJsonArray{req.value(QLatin1String("id"))}).toJson());
        QJsonObject rep = byId.value(idKey);
        const QString method = req.value(QLatin1String("method")).toString();
        const QJsonArray params = req.value(QLatin1String("params")).toArray();
        if (method == QLatin1String("eth_blockNumber")) {
            rep = resultFor(req, chain::hex::encodeQuantity(std::uint64_t(lagHead)));
        } else if (method == QLatin1String("eth_getBlockByNumber")) {
            const QString tag = params.at(0).toString();
            qint64 n = -1;
            try {
                n = qint64(chain::hex::parseQuantityU63(tag, QStringLiteral("block")));
            } catch (const std::exception&) {
            }
            if (n > lagHead)
                rep = resultFor(req, QJsonValue::Null); // not reached yet, as a lagging node says
            // "latest" through a lagging view is left to the upstream; callers use numbers.
        }
        out.append(rep);
    }
    return batch ? QJsonDocument(out).toJson(QJsonDocument::Compact)
                 : QJsonDocument(out.first().toObject()).toJson(QJsonDocument::Compact);
}

void FaultProxy::reply(QTcpSocket* s, int status, const QByteArray& body)
{
    ++m_served;
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + (status == 200 ? " OK" : " Error") + "\r\n";
    head += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n";
    s->write(head + body);
}

} // namespace forkscope::lab
