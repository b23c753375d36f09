#include "FaultProxy.h"
#include "DevnetError.h"
#include "FaultJsonRpc.h"
#include "chain/Hex.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QSet>
#include <QTcpSocket>
#include <QTimer>
#include <cmath>
#include <memory>

namespace forkscope::lab {

namespace {
constexpr qsizetype kMaxRequestBytes = 16 * 1024 * 1024;
} // namespace

using jsonrpc::errorFor;
using jsonrpc::resultFor;

FaultProxy::FaultProxy(const QUrl& upstream, QObject* parent)
    : QObject(parent), m_upstream(upstream), m_nam(new QNetworkAccessManager(this))
{
    m_nam->setProxy(QNetworkProxy::NoProxy);
    // A child, so moveToThread() takes the server along (the app runs its lab proxies on
    // their own thread); as a member it detaches from us before ~QObject runs.
    m_server.setParent(this);
    connect(&m_server, &QTcpServer::newConnection, this, &FaultProxy::onConnection);
}

FaultProxy::~FaultProxy()
{
    // Sockets are the server's children and emit disconnected() while dying; cut them off
    // from this half-destroyed object first.
    m_server.close();
    for (QTcpSocket* s : m_server.findChildren<QTcpSocket*>()) {
        s->disconnect(this);
        s->abort();
    }
    m_buffers.clear();
}

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
        // Offline is decided per request (the admin path must keep answering).
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
        const QByteArray header = buf.left(headerEnd);
        const QByteArray body = buf.mid(headerEnd + 4, length);
        buf.remove(0, headerEnd + 4 + length);
        handle(s, header, body);
    }
}

FaultProxy::CallCounts FaultProxy::callCounts() const
{
    QMutexLocker lock(&m_countsMutex);
    return m_counts;
}

void FaultProxy::count(const QByteArray& requestBody)
{
    const QJsonDocument doc = QJsonDocument::fromJson(requestBody);
    const QJsonArray requests = doc.isArray() ? doc.array() : QJsonArray{doc.object()};
    QMutexLocker lock(&m_countsMutex);
    for (const QJsonValue& r : requests) {
        const QString method = r.toObject().value(QLatin1String("method")).toString();
        ++m_counts.calls[method.isEmpty() ? QStringLiteral("(not JSON-RPC)") : method];
        if (method != QLatin1String("eth_getLogs"))
            continue;
        const QJsonObject filter =
            r.toObject().value(QLatin1String("params")).toArray().first().toObject();
        try {
            const auto from = chain::hex::parseQuantityU63(filter.value(QLatin1String("fromBlock")),
                                                           QStringLiteral("fromBlock"));
            const auto to = chain::hex::parseQuantityU63(filter.value(QLatin1String("toBlock")),
                                                         QStringLiteral("toBlock"));
            m_counts.logsBlocks += to >= from ? qint64(to - from + 1) : 0;
        } catch (const std::exception&) {
            // a tag ("latest") or no range: a call, but no span to add
        }
    }
}

void FaultProxy::handle(QTcpSocket* s, const QByteArray& header, const QByteArray& body)
{
    if (handleAdmin(s, header, body))
        return;
    if (m_countCalls)
        count(body);
    if (m_offline) {
        s->abort(); // a dead node: no reply at all
        return;
    }
    QPointer<QTcpSocket> socket(s);
    auto proceed = [this, socket, body] {
        if (!socket)
            return;
        if (m_offline) {
            socket->abort();
            return;
        }
        if (m_errorRate > 0 && m_random.generateDouble() < m_errorRate) {
            ++m_injectedErrors;
            if (m_injectedErrors % 2)
                reply(socket, 503, "injected fault: service unavailable");
            else
                reply(socket, 200, injectedError(body));
            return;
        }
        if (failsNow(body)) {
            reply(socket, 503, "injected fault: service unavailable");
            return;
        }
        if (m_stateFrom >= 0) {
            if (const auto refusal = refusedState(body)) {
                reply(socket, 200, *refusal);
                return;
            }
        }
        if (m_maxAddresses > 0) {
            if (const auto refusal = refusedAddresses(body)) {
                reply(socket, 200, *refusal);
                return;
            }
        }
        if (m_refuseLogsFrom >= 0) {
            if (const auto refusal = refusedLogs(body)) {
                reply(socket, 200, *refusal);
                return;
            }
        }
        if (m_lagBlocks == 0 && m_logCap == 0 && !m_dropLogs && m_lie == ProxyLie::None &&
            m_dropLogRate == 0 && m_dropBlockRate == 0 && !m_noReceipts) {
            forward(socket, body, -1);
            return;
        }
        // Learn the upstream head first, to know where the lagging view ends.
        QNetworkRequest req(m_upstream);
        req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply* r = m_nam->post(
            req, QByteArrayLiteral(
                     R"({"jsonrpc":"2.0","id":0,"method":"eth_blockNumber","params":[]})"));
        connect(r, &QNetworkReply::finished, this, [this, r, socket, body] {
            r->deleteLater();
            if (!socket)
                return;
            const QJsonValue head =
                QJsonDocument::fromJson(r->readAll()).object().value(QLatin1String("result"));
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
    const bool balanced = m_toBalanced && !m_balanceWith.isEmpty();
    m_toBalanced = !m_balanceWith.isEmpty() && !m_toBalanced;
    QNetworkRequest req(balanced ? m_balanceWith : m_upstream);
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
        if (lagHead >= 0 || m_logCap > 0 || m_dropLogs || m_lie != ProxyLie::None ||
            m_dropLogRate > 0 || m_dropBlockRate > 0 || m_noReceipts)
            out = rewrite(body, out, lagHead);
        if (m_padReplyBytes > 0)
            out += QByteArray(qsizetype(m_padReplyBytes.load()), ' ');
        reply(socket, status, out);
    });
}

QByteArray FaultProxy::rewrite(const QByteArray& requestBody, const QByteArray& replyBody,
                               qint64 lagHead)
{
    const QJsonDocument reqDoc = QJsonDocument::fromJson(requestBody);
    const QJsonDocument repDoc = QJsonDocument::fromJson(replyBody);
    const bool batch = reqDoc.isArray();
    const QJsonArray reqs = batch ? reqDoc.array() : QJsonArray{reqDoc.object()};
    const QJsonArray reps = repDoc.isArray() ? repDoc.array() : QJsonArray{repDoc.object()};
    QHash<QString, QJsonObject> byId;
    for (const QJsonValue& v : reps)
        byId.insert(
            QString::fromUtf8(
                QJsonDocument(QJsonArray{v.toObject().value(QLatin1String("id"))}).toJson()),
            v.toObject());
    QJsonArray out;
    for (const QJsonValue& rv : reqs) {
        const QJsonObject req = rv.toObject();
        const QString idKey =
            QString::fromUtf8(QJsonDocument(QJsonArray{req.value(QLatin1String("id"))}).toJson());
        QJsonObject rep = byId.value(idKey);
        const QString method = req.value(QLatin1String("method")).toString();
        const QJsonArray params = req.value(QLatin1String("params")).toArray();
        if (method == QLatin1String("eth_getLogs") && m_dropLogs &&
            rep.value(QLatin1String("result")).isArray()) {
            rep = resultFor(req, QJsonArray());
        } else if (method == QLatin1String("eth_getBlockReceipts") && m_noReceipts) {
            rep = errorFor(req, -32601,
                           QStringLiteral("the method eth_getBlockReceipts does not exist/is not "
                                          "available"));
        } else if (method == QLatin1String("eth_getLogs") && m_logCap > 0 &&
                   rep.value(QLatin1String("result")).isArray() &&
                   quint64(rep.value(QLatin1String("result")).toArray().size()) > m_logCap) {
            ++m_cappedReplies;
            const QJsonArray all = rep.value(QLatin1String("result")).toArray();
            if (m_capMode == CapMode::Silent) {
                QJsonArray cut;
                for (qsizetype i = 0; i < qsizetype(m_logCap.load()); ++i)
                    cut.append(all.at(i));
                rep = resultFor(req, cut);
            } else {
                // Wordings of real providers; the suggested range is the first half.
                const QJsonObject f = params.at(0).toObject();
                quint64 a = 0, b = 0;
                try {
                    a = chain::hex::parseQuantityU63(f.value(QLatin1String("fromBlock")),
                                                     QStringLiteral("fromBlock"));
                    b = chain::hex::parseQuantityU63(f.value(QLatin1String("toBlock")),
                                                     QStringLiteral("toBlock"));
                } catch (const std::exception&) {
                }
                const QString mid = chain::hex::encodeQuantity(a + (b > a ? (b - a) / 2 : 0));
                const QString from = chain::hex::encodeQuantity(a);
                QString message;
                switch (m_wording++ % 3) {
                case 0:
                    message = QStringLiteral("query returned more than %1 results. Try with this "
                                             "block range [%2, %3].")
                                  .arg(m_logCap.load())
                                  .arg(from, mid);
                    break;
                case 1:
                    message =
                        QStringLiteral("Log response size exceeded. You can make eth_getLogs "
                                       "requests with up to a 2K block range and no limit on "
                                       "the response size, or you can request any block range "
                                       "with a cap of %1 logs in the response. Based on your "
                                       "parameters, this block range should work: [%2, %3]")
                            .arg(m_logCap.load())
                            .arg(from, mid);
                    break;
                default:
                    message = QStringLiteral("block range too large");
                    break;
                }
                rep = errorFor(req, -32005, message);
            }
        } else if (lagHead < 0) {
            // no lag: leave the rest untouched
        } else if (method == QLatin1String("eth_blockNumber")) {
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
        out.append(applyProxyLie(
            m_lie, req,
            applyLogDrops({m_dropLogRate, m_dropBlockRate, m_seed, m_dropInReceipts}, req, rep)));
    }
    return batch ? QJsonDocument(out).toJson(QJsonDocument::Compact)
                 : QJsonDocument(out.first().toObject()).toJson(QJsonDocument::Compact);
}

void FaultProxy::setSeed(quint32 seed)
{
    m_random.seed(seed);
    m_seed = seed;
}

QJsonObject FaultProxy::knobs() const
{
    return QJsonObject{{QStringLiteral("offline"), bool(m_offline)},
                       {QStringLiteral("lagBlocks"), qint64(m_lagBlocks.load())},
                       {QStringLiteral("latencyMs"), int(m_latencyMs)},
                       {QStringLiteral("errorRate"), double(m_errorRate)},
                       {QStringLiteral("logCap"), qint64(m_logCap.load())},
                       {QStringLiteral("dropLogs"), bool(m_dropLogs)},
                       {QStringLiteral("logCapMode"), m_capMode == CapMode::Silent
                                                          ? QStringLiteral("silent")
                                                          : QStringLiteral("announced")},
                       {QStringLiteral("lie"), proxyLieName(m_lie)},
                       {QStringLiteral("dropLogRate"), double(m_dropLogRate)},
                       {QStringLiteral("dropBlockRate"), double(m_dropBlockRate)},
                       {QStringLiteral("dropInReceipts"), bool(m_dropInReceipts)},
                       {QStringLiteral("noReceipts"), bool(m_noReceipts)},
                       {QStringLiteral("trickleBps"), int(m_trickleBps)},
                       {QStringLiteral("padReplyBytes"), qint64(m_padReplyBytes.load())},
                       {QStringLiteral("upstream"), m_upstream.toString()},
                       {QStringLiteral("balanceWith"), m_balanceWith.toString()},
                       {QStringLiteral("requestsServed"), m_served},
                       {QStringLiteral("injectedErrors"), m_injectedErrors},
                       {QStringLiteral("cappedReplies"), m_cappedReplies}};
}

QString FaultProxy::applyKnobs(const QJsonObject& c)
{
    // Validate everything before changing anything.
    const auto isCount = [](const QJsonValue& v) {
        return v.isDouble() && v.toDouble() >= 0 && v.toDouble() == std::floor(v.toDouble());
    };
    for (const char* k : {"offline", "dropLogs", "dropInReceipts", "noReceipts"})
        if (c.contains(QLatin1String(k)) && !c.value(QLatin1String(k)).isBool())
            return QStringLiteral("%1 must be true or false").arg(QLatin1String(k));
    for (const char* k : {"lagBlocks", "latencyMs", "logCap", "trickleBps", "padReplyBytes"})
        if (c.contains(QLatin1String(k)) && !isCount(c.value(QLatin1String(k))))
            return QStringLiteral("%1 must be a whole number >= 0").arg(QLatin1String(k));
    for (const char* k : {"errorRate", "dropLogRate", "dropBlockRate"}) {
        const QJsonValue v = c.value(QLatin1String(k));
        if (c.contains(QLatin1String(k)) && (!v.isDouble() || v.toDouble() < 0 || v.toDouble() > 1))
            return QStringLiteral("%1 must be a number from 0 to 1").arg(QLatin1String(k));
    }
    const QString mode = c.value(QLatin1String("logCapMode")).toString(QStringLiteral("-"));
    if (c.contains(QLatin1String("logCapMode")) && mode != QLatin1String("silent") &&
        mode != QLatin1String("announced"))
        return QStringLiteral("logCapMode must be \"silent\" or \"announced\"");
    const auto lie = proxyLieFromName(c.value(QLatin1String("lie")).toString());
    if (c.contains(QLatin1String("lie")) && !lie)
        return QStringLiteral("lie must be one of %1")
            .arg(proxyLieNames().join(QStringLiteral(", ")));
    const QUrl upstream(c.value(QLatin1String("upstream")).toString());
    if (c.contains(QLatin1String("upstream")) &&
        (!upstream.isValid() || upstream.scheme() != QLatin1String("http") ||
         upstream.host().isEmpty()))
        return QStringLiteral("upstream must be an http URL");
    const QUrl balanceWith(c.value(QLatin1String("balanceWith")).toString());
    if (c.contains(QLatin1String("balanceWith")) && !balanceWith.isEmpty() &&
        (!balanceWith.isValid() || balanceWith.scheme() != QLatin1String("http") ||
         balanceWith.host().isEmpty()))
        return QStringLiteral("balanceWith must be an http URL, or empty");
    for (auto it = c.begin(); it != c.end(); ++it)
        if (!QStringList{QStringLiteral("offline"), QStringLiteral("lagBlocks"),
                         QStringLiteral("latencyMs"), QStringLiteral("errorRate"),
                         QStringLiteral("logCap"), QStringLiteral("logCapMode"),
                         QStringLiteral("dropLogs"), QStringLiteral("lie"),
                         QStringLiteral("trickleBps"), QStringLiteral("padReplyBytes"),
                         QStringLiteral("upstream"), QStringLiteral("balanceWith"),
                         QStringLiteral("dropLogRate"), QStringLiteral("dropBlockRate"),
                         QStringLiteral("dropInReceipts"), QStringLiteral("noReceipts")}
                 .contains(it.key()))
            return QStringLiteral("unknown knob \"%1\"").arg(it.key());
    if (lie)
        m_lie = *lie;
    if (c.contains(QLatin1String("dropLogRate")))
        m_dropLogRate = c.value(QLatin1String("dropLogRate")).toDouble();
    if (c.contains(QLatin1String("dropBlockRate")))
        m_dropBlockRate = c.value(QLatin1String("dropBlockRate")).toDouble();
    if (c.contains(QLatin1String("dropInReceipts")))
        m_dropInReceipts = c.value(QLatin1String("dropInReceipts")).toBool();
    if (c.contains(QLatin1String("noReceipts")))
        m_noReceipts = c.value(QLatin1String("noReceipts")).toBool();
    if (c.contains(QLatin1String("upstream")))
        m_upstream = upstream;
    if (c.contains(QLatin1String("balanceWith")))
        m_balanceWith = balanceWith;
    if (c.contains(QLatin1String("trickleBps")))
        m_trickleBps = int(c.value(QLatin1String("trickleBps")).toDouble());
    if (c.contains(QLatin1String("padReplyBytes")))
        m_padReplyBytes = qint64(c.value(QLatin1String("padReplyBytes")).toDouble());
    if (c.contains(QLatin1String("offline")))
        m_offline = c.value(QLatin1String("offline")).toBool();
    if (c.contains(QLatin1String("lagBlocks")))
        m_lagBlocks = quint64(c.value(QLatin1String("lagBlocks")).toDouble());
    if (c.contains(QLatin1String("latencyMs")))
        m_latencyMs = int(c.value(QLatin1String("latencyMs")).toDouble());
    if (c.contains(QLatin1String("errorRate")))
        m_errorRate = c.value(QLatin1String("errorRate")).toDouble();
    if (c.contains(QLatin1String("dropLogs")))
        m_dropLogs = c.value(QLatin1String("dropLogs")).toBool();
    if (c.contains(QLatin1String("logCap")))
        m_logCap = quint64(c.value(QLatin1String("logCap")).toDouble());
    if (c.contains(QLatin1String("logCapMode")))
        m_capMode = mode == QLatin1String("silent") ? CapMode::Silent : CapMode::Announced;
    return {};
}

bool FaultProxy::handleAdmin(QTcpSocket* s, const QByteArray& header, const QByteArray& body)
{
    const QByteArray requestLine = header.left(header.indexOf("\r\n"));
    const QList<QByteArray> parts = requestLine.split(' ');
    if (parts.size() < 2 || !parts[1].startsWith("/_forkscope/proxy"))
        return false;
    if (parts[0] == "POST") {
        QJsonParseError pe{};
        const QJsonDocument doc = QJsonDocument::fromJson(body, &pe);
        if (pe.error != QJsonParseError::NoError || !doc.isObject()) {
            reply(s, 400,
                  QJsonDocument(QJsonObject{{QStringLiteral("error"),
                                             QStringLiteral("expected a JSON object of knobs")}})
                      .toJson(QJsonDocument::Compact));
            return true;
        }
        const QString err = applyKnobs(doc.object());
        if (!err.isEmpty()) {
            reply(s, 400,
                  QJsonDocument(QJsonObject{{QStringLiteral("error"), err}})
                      .toJson(QJsonDocument::Compact));
            return true;
        }
    }
    reply(s, 200, QJsonDocument(knobs()).toJson(QJsonDocument::Compact));
    return true;
}

void FaultProxy::reply(QTcpSocket* s, int status, const QByteArray& body)
{
    ++m_served;
    QByteArray head =
        "HTTP/1.1 " + QByteArray::number(status) + (status == 200 ? " OK" : " Error") + "\r\n";
    head += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
            "\r\n\r\n";
    if (m_trickleBps > 0 && status != 413)
        trickle(s, head + body);
    else
        s->write(head + body);
}

void FaultProxy::trickle(QTcpSocket* s, const QByteArray& data)
{
    // Ten writes a second, at least one byte each: the reply arrives, just never in time.
    const int perTick = std::max(1, int(m_trickleBps) / 10);
    const int interval = std::max(100, 1000 * perTick / std::max(1, int(m_trickleBps)));
    QPointer<QTcpSocket> socket(s);
    auto* timer = new QTimer(this);
    auto offset = std::make_shared<qsizetype>(0);
    connect(timer, &QTimer::timeout, this, [socket, timer, data, offset, perTick] {
        if (!socket || socket->state() != QAbstractSocket::ConnectedState ||
            *offset >= data.size()) {
            timer->deleteLater();
            return;
        }
        socket->write(data.mid(*offset, perTick));
        *offset += perTick;
    });
    timer->start(interval);
}

} // namespace forkscope::lab
