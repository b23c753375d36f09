#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <functional>
#include <optional>

namespace forkscope::api {

// The error codes of JSON-RPC 2.0 §5.1, and one of its server-error range.
namespace jsonrpc {
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
// Refused for load, to be retried: the code EIP-1474 gives "limit exceeded", which
// Ethereum clients already treat as retryable.
constexpr int kServerBusy = -32005;
// A batch answers one response per call, each up to a method's own bound; 100 calls (the
// default batchMaxCount of ethers v6) bounds the whole reply.
constexpr qsizetype kMaxBatch = 100;
} // namespace jsonrpc

// What a method throws: the code and one line naming what was wrong.
struct JsonRpcError
{
    int code;
    QString message;
};

// Runs one call; throws JsonRpcError (anything else thrown is reported as -32603).
using JsonRpcMethods = std::function<QJsonValue(const QString& method, const QJsonValue& params)>;

// Answers a JSON-RPC 2.0 body as the specification (jsonrpc.org/specification) says:
// - a request object gets one response object; a batch (array) gets an array of responses,
//   one per call that is not a notification;
// - a notification (a valid request without "id") is run and gets nothing, not even an
//   error; a batch of notifications only gets nothing (std::nullopt: send no body);
// - "id" may be a string, a number or null and is echoed; any other id is -32600;
// - unparseable JSON is -32700; valid JSON that is not a request (a scalar, "jsonrpc" not
//   "2.0", "method" not a string) is -32600; "params" neither array nor object is -32602;
//   an empty batch or one of more than kMaxBatch calls is a single -32600.
// - every error carries the request's id whenever it can be read (an object with a valid
//   "id"); "id": null only when it cannot (-32700, a request that is not an object, an id
//   of the wrong type, a request without one, a batch refused as a whole), as §5 says.
std::optional<QByteArray> answerJsonRpc(QByteArrayView body, const JsonRpcMethods& methods);

// The reply to a body refused as a whole without running it (the server is busy): each
// call gets the error `code`, with its id, as answerJsonRpc would answer a method that
// failed; a body that is not a request gets the envelope's own error.
std::optional<QByteArray> refuseJsonRpc(QByteArrayView body, int code, const QString& message);

// A lone error response with "id": null, for a body refused before it was read (HTTP 413).
QByteArray jsonRpcErrorReply(int code, const QString& message);

} // namespace forkscope::api
