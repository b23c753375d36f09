#pragma once

#include "RpcError.h"
#include "chain/ParsedJson.h"
#include "concurrency/StopToken.h"

#include <QJsonArray>
#include <QJsonValue>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QUrl>
#include <chrono>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace forkscope::rpc {

struct RpcRequest
{
    QString method;
    QJsonArray params;
    // The caller reads the reply's `json` with a typed reader (EthClient's hot calls), so
    // no QJsonValue `result` is built for it.
    bool typed = false;
};

struct RpcResponse
{
    QJsonValue result;      // meaningful only when !error, and undefined for a typed request
    chain::ParsedJson json; // the same result as simdjson parsed it; valid when !error
    std::optional<RpcError> error;
    QString endpoint; // who answered (no user info), for errors found while parsing `result`
    bool ok() const { return !error.has_value(); }
};

// One HTTP round trip carrying a single request or a batch. Emits finished() exactly once;
// responses() then holds one entry per request, in request order, each with its own
// result or error (a failure of the whole round trip is copied into every entry).
class RpcCall : public QObject
{
    Q_OBJECT
public:
    ~RpcCall() override;
    bool isFinished() const { return m_finished; }
    const QList<RpcResponse>& responses() const { return m_responses; }
    const RpcResponse& response() const { return m_responses.front(); }
    void abort();

signals:
    void finished();

private:
    friend class JsonRpcClient;
    explicit RpcCall(QObject* parent) : QObject(parent) {}

    QList<RpcRequest> m_requests;
    QList<qint64> m_ids;
    bool m_batch = false;
    bool m_finished = false;
    bool m_timedOut = false;
    qint64 m_tooLargeBytes = -1; // >= 0: cut off for exceeding the cap (bytes seen or announced)
    bool m_cancelled = false;    // aborted because the client's stop token was set
    QPointer<QNetworkReply> m_reply;
    QByteArray m_body; // drained from m_reply as it arrives, with room for the parser's padding
    QList<RpcResponse> m_responses;
};

// Asynchronous JSON-RPC 2.0 over HTTP. Lives on (and must be used from) one thread.
// The *Blocking helpers spin a local event loop; they exist for worker threads, which own
// their event loop anyway, and must never be called on the GUI thread.
class JsonRpcClient : public QObject
{
    Q_OBJECT
public:
    explicit JsonRpcClient(const QUrl& endpoint, QObject* parent = nullptr);
    ~JsonRpcClient() override;

    const QUrl& endpoint() const { return m_endpoint; }
    // The whole round trip's deadline (connect, request, every byte of the reply): a node
    // that trickles its answer is a timeout, not a hang.
    void setTimeout(std::chrono::milliseconds t) { m_timeout = t; }
    std::chrono::milliseconds timeout() const { return m_timeout; }
    // Replies are read into memory whole, so their size is capped: a larger Content-Length,
    // or more bytes than announced, aborts the call with RpcError::Kind::TooLarge.
    void setMaxReplyBytes(qint64 bytes) { m_maxReplyBytes = bytes; }
    qint64 maxReplyBytes() const { return m_maxReplyBytes; }
    static constexpr qint64 kDefaultMaxReplyBytes = 32LL * 1024 * 1024;
    // A blocking wait on this client gives up (RpcError::Kind::Cancelled) within ~25 ms of
    // the token being set: a worker asked to stop never waits for the node.
    void setStopToken(concurrency::StopTokenPtr token) { m_stop = std::move(token); }
    const concurrency::StopTokenPtr& stopToken() const { return m_stop; }

    // The returned call is a child of this client; delete it (or deleteLater) when done.
    RpcCall* call(const QString& method, const QJsonArray& params = {});
    RpcCall* call(const RpcRequest& request);
    RpcCall* batch(const QList<RpcRequest>& requests);

    QJsonValue callBlocking(const QString& method, const QJsonArray& params = {});
    QList<RpcResponse> batchBlocking(const QList<RpcRequest>& requests);
    static void waitFor(RpcCall* call);

private:
    RpcCall* send(const QList<RpcRequest>& requests, bool asBatch);
    void complete(RpcCall* call);
    RpcError makeError(RpcError::Kind kind, const QString& method, const QString& message,
                       int httpStatus = 0) const;

    QUrl m_endpoint;
    QString m_endpointText;
    QNetworkAccessManager* m_nam;
    std::chrono::milliseconds m_timeout{10000};
    qint64 m_maxReplyBytes = kDefaultMaxReplyBytes;
    concurrency::StopTokenPtr m_stop;
    qint64 m_nextId = 1;
};

} // namespace forkscope::rpc
