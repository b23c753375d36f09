#include "JsonRpcClient.h"
#include "ReplyBody.h"
#include "chain/ParsedJson.h"

#include <QEventLoop>
#include <QHostAddress>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>
#include <algorithm>
#include <utility>

namespace forkscope::rpc {

namespace {

bool isLoopback(const QUrl& url)
{
    const QString host = url.host();
    if (host == QLatin1String("localhost"))
        return true;
    QHostAddress a;
    return a.setAddress(host) && a.isLoopback();
}

// An announced Content-Length is reserved up front only this far: a node may lie about it.
constexpr qint64 kMaxReserve = qint64(256) << 20;

// Moves what `from` has buffered to the end of `to`, keeping the JSON parser's padding
// allocated past the end. Draining as it arrives means the reply body exists once, not
// in Qt's read buffer and again in a readAll() copy, and simdjson parses it in place.
void drain(QIODevice& from, QByteArray& to)
{
    const qint64 n = from.bytesAvailable();
    if (n <= 0)
        return;
    const qsizetype at = to.size();
    const qsizetype need = at + qsizetype(n) + chain::ParsedJson::kPaddingBytes;
    if (to.capacity() < need)
        to.reserve(std::max(need, 2 * to.capacity()));
    to.resize(at + qsizetype(n)); // never shrinks the capacity (Qt 6)
    const qint64 got = from.read(to.data() + at, n);
    to.resize(at + qsizetype(std::max<qint64>(got, 0)));
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

RpcCall* JsonRpcClient::call(const RpcRequest& request)
{
    return send({request}, false);
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
        else if (length.isValid() && length.toLongLong() > 0 && length.toLongLong() <= kMaxReserve)
            call->m_body.reserve(length.toLongLong() + chain::ParsedJson::kPaddingBytes);
    });
    connect(call->m_reply, &QNetworkReply::downloadProgress, call,
            [cap, cutOff](qint64 received, qint64) {
                if (cap > 0 && received > cap)
                    cutOff(received);
            });
    connect(call->m_reply, &QNetworkReply::readyRead, call, [call, cap, cutOff] {
        if (!call->m_reply || call->m_tooLargeBytes >= 0)
            return;
        const qint64 seen = call->m_body.size() + call->m_reply->bytesAvailable();
        if (cap > 0 && seen > cap)
            cutOff(seen);
        else
            drain(*call->m_reply, call->m_body);
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
        if (reply->isOpen())
            drain(*reply, call->m_body);
        const QByteArray body = std::exchange(call->m_body, {});

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
            out = parseReplyBody(body, status,
                                 {call->m_requests, call->m_ids, call->m_batch, m_endpointText});
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
