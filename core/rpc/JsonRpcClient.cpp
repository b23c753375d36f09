#include "JsonRpcClient.h"

#include <QEventLoop>
#include <QHash>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace forkscope::rpc {

namespace {

QString snippet(const QByteArray& body)
{
    constexpr int kMax = 120;
    QString s = QString::fromUtf8(body.left(kMax)).simplified();
    if (body.size() > kMax)
        s += QStringLiteral("... (%1 bytes)").arg(body.size());
    return s.isEmpty() ? QStringLiteral("(empty body)") : QLatin1Char('"') + s + QLatin1Char('"');
}

bool isLoopback(const QUrl& url)
{
    const QString host = url.host();
    if (host == QLatin1String("localhost"))
        return true;
    QHostAddress a;
    return a.setAddress(host) && a.isLoopback();
}

// Parses one JSON-RPC response object into `out`. Returns false (and fills out.error)
// when the object is not a well-formed response.
void parseResponseObject(const QJsonObject& o, RpcResponse& out, const RpcError& proto)
{
    const QJsonValue err = o.value(QLatin1String("error"));
    if (!err.isUndefined() && !err.isNull()) {
        RpcError e = proto;
        if (!err.isObject() || !err.toObject().value(QLatin1String("code")).isDouble()) {
            e.kind = RpcError::Kind::Malformed;
            e.message = QStringLiteral("the \"error\" member is not a {code, message} object");
        } else {
            const QJsonObject eo = err.toObject();
            e.kind = RpcError::Kind::Remote;
            e.code = qint64(eo.value(QLatin1String("code")).toDouble());
            e.message = eo.value(QLatin1String("message")).toString();
            e.data = eo.value(QLatin1String("data"));
        }
        out.error = e;
        return;
    }
    if (!o.contains(QLatin1String("result"))) {
        RpcError e = proto;
        e.kind = RpcError::Kind::Malformed;
        e.message = QStringLiteral("reply has neither \"result\" nor \"error\"");
        out.error = e;
        return;
    }
    out.result = o.value(QLatin1String("result"));
}

} // namespace

RpcCall::~RpcCall()
{
    if (m_reply) {
        m_reply->disconnect(this);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

void RpcCall::abort()
{
    if (m_reply)
        m_reply->abort();
}

JsonRpcClient::JsonRpcClient(const QUrl& endpoint, QObject* parent)
    : QObject(parent), m_endpoint(endpoint),
      m_endpointText(endpoint.toString(QUrl::RemoveUserInfo)),
      m_nam(new QNetworkAccessManager(this))
{
    // A lab node on loopback must never be routed through a corporate proxy from the
    // environment; remote endpoints keep the system proxy settings.
    if (isLoopback(endpoint))
        m_nam->setProxy(QNetworkProxy::NoProxy);
}

JsonRpcClient::~JsonRpcClient() = default;

RpcCall* JsonRpcClient::call(const QString& method, const QJsonArray& params)
{
    return send({RpcRequest{method, params}}, false);
}

RpcCall* JsonRpcClient::batch(const QList<RpcRequest>& requests)
{
    return send(requests, true);
}

RpcError JsonRpcClient::makeError(RpcError::Kind kind, const QString& method,
                                  const QString& message, int httpStatus) const
{
    RpcError e;
    e.kind = kind;
    e.method = method;
    e.endpoint = m_endpointText;
    e.message = message;
    e.httpStatus = httpStatus;
    return e;
}

RpcCall* JsonRpcClient::send(const QList<RpcRequest>& requests, bool asBatch)
{
    auto* call = new RpcCall(this);
    call->m_requests = requests;
    call->m_batch = asBatch;

    QJsonArray arr;
    for (const RpcRequest& r : requests) {
        const qint64 id = m_nextId++;
        call->m_ids.append(id);
        arr.append(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                               {QStringLiteral("id"), id},
                               {QStringLiteral("method"), r.method},
                               {QStringLiteral("params"), r.params}});
    }
    if (requests.isEmpty()) {
        // Nothing to send; finish asynchronously so callers see the usual signal order.
        QTimer::singleShot(0, call, [this, call] { complete(call); });
        return call;
    }
    const QByteArray body =
        asBatch ? QJsonDocument(arr).toJson(QJsonDocument::Compact)
                : QJsonDocument(arr.first().toObject()).toJson(QJsonDocument::Compact);

    QNetworkRequest req(m_endpoint);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    req.setRawHeader("Accept", "application/json");
    call->m_reply = m_nam->post(req, body);

    auto* timer = new QTimer(call);
    timer->setSingleShot(true);
    connect(timer, &QTimer::timeout, call, [call] {
        call->m_timedOut = true;
        if (call->m_reply)
            call->m_reply->abort();
    });
    timer->start(m_timeout);
    const qint64 cap = m_maxReplyBytes;
    const auto cutOff = [call](qint64 bytes) {
        if (call->m_tooLargeBytes >= 0 || !call->m_reply)
            return;
        call->m_tooLargeBytes = bytes;
        call->m_reply->abort();
    };
    connect(call->m_reply, &QNetworkReply::metaDataChanged, call, [call, cap, cutOff] {
        const QVariant length = call->m_reply->header(QNetworkRequest::ContentLengthHeader);
        if (cap > 0 && length.isValid() && length.toLongLong() > cap)
            cutOff(length.toLongLong());
    });
    connect(call->m_reply, &QNetworkReply::downloadProgress, call,
            [cap, cutOff](qint64 received, qint64) {
                if (cap > 0 && received > cap)
                    cutOff(received);
            });
    connect(call->m_reply, &QNetworkReply::readyRead, call, [call, cap, cutOff] {
        if (cap > 0 && call->m_reply && call->m_reply->bytesAvailable() > cap)
            cutOff(call->m_reply->bytesAvailable());
    });
    connect(call->m_reply, &QNetworkReply::finished, call, [this, call, timer] {
        timer->stop();
        complete(call);
    });
    return call;
}

void JsonRpcClient::complete(RpcCall* call)
{
    const QString methodLabel =
        call->m_batch ? QStringLiteral("batch of %1").arg(call->m_requests.size())
                      : (call->m_requests.isEmpty() ? QString() : call->m_requests.first().method);
    QList<RpcResponse>& out = call->m_responses;
    out.clear();
    out.resize(call->m_requests.size());

    auto failAll = [&](const RpcError& e) {
        for (qsizetype i = 0; i < out.size(); ++i) {
            RpcError ei = e;
            ei.method = call->m_requests.at(i).method;
            out[i].error = ei;
        }
    };

    QNetworkReply* reply = call->m_reply;
    if (reply) {
        reply->deleteLater();
        call->m_reply = nullptr;
        const QVariant statusAttr = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
        const int status = statusAttr.isValid() ? statusAttr.toInt() : 0;
        // An aborted reply is closed: reading it would only print a Qt warning.
        const QByteArray body = reply->isOpen() ? reply->readAll() : QByteArray();

        if (call->m_cancelled) {
            failAll(makeError(RpcError::Kind::Cancelled, methodLabel,
                              QStringLiteral("the caller is stopping")));
        } else if (call->m_tooLargeBytes >= 0) {
            failAll(makeError(RpcError::Kind::TooLarge, methodLabel,
                              QStringLiteral("the reply (%1 bytes, or more) exceeds the %2 MiB "
                                             "reply cap; cut off unread")
                                  .arg(call->m_tooLargeBytes)
                                  .arg(double(m_maxReplyBytes) / (1024.0 * 1024.0), 0, 'g', 4)));
        } else if (call->m_timedOut) {
            failAll(makeError(RpcError::Kind::Timeout, methodLabel,
                              QStringLiteral("no reply within %1 ms").arg(m_timeout.count())));
        } else if (status == 0) {
            failAll(makeError(RpcError::Kind::Transport, methodLabel, reply->errorString()));
        } else {
            QJsonParseError pe{};
            const QJsonDocument doc = QJsonDocument::fromJson(body, &pe);
            const bool httpOk = status >= 200 && status < 300;
            RpcError proto = makeError(RpcError::Kind::Malformed, methodLabel, {}, status);

            if (pe.error != QJsonParseError::NoError) {
                if (!httpOk)
                    failAll(makeError(RpcError::Kind::Http, methodLabel, snippet(body), status));
                else
                    failAll(makeError(RpcError::Kind::Malformed, methodLabel,
                                      QStringLiteral("body is not JSON (%1 at offset %2): %3")
                                          .arg(pe.errorString())
                                          .arg(pe.offset)
                                          .arg(snippet(body)),
                                      status));
            } else if (doc.isObject() &&
                       (!call->m_batch || doc.object().contains(QLatin1String("error")))) {
                // A single reply, or a batch rejected as a whole with one error object.
                RpcResponse r;
                parseResponseObject(doc.object(), r, proto);
                const QJsonValue id = doc.object().value(QLatin1String("id"));
                if (!call->m_batch && r.ok() && id.toInteger(-1) != call->m_ids.first()) {
                    r.error = proto;
                    r.error->message =
                        QStringLiteral("reply id %1 does not match request id %2")
                            .arg(QString::fromUtf8(
                                QJsonDocument(QJsonArray{id}).toJson(QJsonDocument::Compact)))
                            .arg(call->m_ids.first());
                }
                if (!httpOk && r.ok())
                    r.error = makeError(RpcError::Kind::Http, methodLabel, snippet(body), status);
                if (call->m_batch && r.ok())
                    r.error =
                        makeError(RpcError::Kind::Malformed, methodLabel,
                                  QStringLiteral("expected an array reply to a batch"), status);
                if (r.ok()) {
                    out[0] = r;
                } else {
                    failAll(*r.error);
                }
            } else if (doc.isArray() && call->m_batch) {
                QHash<qint64, QJsonObject> byId;
                for (const QJsonValue& v : doc.array())
                    if (v.isObject())
                        byId.insert(v.toObject().value(QLatin1String("id")).toInteger(-1),
                                    v.toObject());
                for (qsizetype i = 0; i < out.size(); ++i) {
                    RpcError pi = proto;
                    pi.method = call->m_requests.at(i).method;
                    const auto it = byId.constFind(call->m_ids.at(i));
                    if (it == byId.cend()) {
                        pi.message =
                            QStringLiteral("the batch reply has no entry for request id %1")
                                .arg(call->m_ids.at(i));
                        out[i].error = pi;
                    } else {
                        parseResponseObject(*it, out[i], pi);
                    }
                }
            } else {
                failAll(makeError(
                    httpOk ? RpcError::Kind::Malformed : RpcError::Kind::Http, methodLabel,
                    QStringLiteral("unexpected JSON shape: %1").arg(snippet(body)), status));
            }
        }
    }
    for (RpcResponse& r : out)
        r.endpoint = m_endpointText;
    call->m_finished = true;
    emit call->finished();
}

void JsonRpcClient::waitFor(RpcCall* call)
{
    if (call->isFinished())
        return;
    QEventLoop loop;
    connect(call, &RpcCall::finished, &loop, &QEventLoop::quit);
    // This nested loop serves the network only: commands never reach a thread that waits
    // here as events (concurrency/LoopThread.h). A stop request ends the wait at once.
    QTimer stopWatch;
    if (const auto* client = qobject_cast<JsonRpcClient*>(call->parent());
        client && client->m_stop) {
        const concurrency::StopTokenPtr token = client->m_stop;
        if (token->stopRequested()) {
            call->m_cancelled = true;
            call->abort();
            if (call->isFinished())
                return;
        }
        connect(&stopWatch, &QTimer::timeout, call, [call, token] {
            if (token->stopRequested() && !call->isFinished()) {
                call->m_cancelled = true;
                call->abort();
            }
        });
        stopWatch.start(25);
    }
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    // The loop also returns when the owning thread is asked to quit (QThread::quit exits
    // nested loops too). Abort so the call finishes now with a transport error.
    if (!call->isFinished())
        call->abort();
}

QJsonValue JsonRpcClient::callBlocking(const QString& method, const QJsonArray& params)
{
    RpcCall* c = call(method, params);
    waitFor(c);
    const RpcResponse r = c->response();
    delete c;
    if (!r.ok())
        throw RpcException(*r.error);
    return r.result;
}

QList<RpcResponse> JsonRpcClient::batchBlocking(const QList<RpcRequest>& requests)
{
    RpcCall* c = batch(requests);
    waitFor(c);
    QList<RpcResponse> r = c->responses();
    delete c;
    return r;
}

} // namespace forkscope::rpc
